// Process (process.go) holds the settings a Locker has as one process,
// resolved once by its constructor and handed down resolved.

package setup

import (
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
)

// MaxSeparatorLen is the longest hierarchy separator accepted, in bytes.
const MaxSeparatorLen = 8

// Process is what a Locker is set up with as one process: the public
// Options' fields of these names (ProcessID is ID). Resolve applies the
// defaults and validates it; the algorithms' cores, the lock manager and
// the deadlock detector take a resolved one.
type Process struct {
	Clock     lockstep.Clock              // default a clock.Local
	ID        string                      // unique in the fleet (ValidateProcessID); default NewProcessID()
	Logger    *slog.Logger                // default discards
	Observer  lockstep.Observer           // default lockstep.NopObserver
	Fencing   *clock.Global               // nil: no fencing tokens
	Separator string                      // ValidateSeparator; "": flat ids
	Deadlock  *lockstep.DeadlockDetection // resolved by Resolve; nil: detection off
}

// Resolve returns p with the defaults applied, validated: the separator,
// the process id and the deadlock detection, in that order, a bad one
// refused with its *lockstep.ConfigError.
func (p Process) Resolve() (Process, error) {
	if err := ValidateSeparator(p.Separator); err != nil {
		return p, err
	}
	if p.ID == "" {
		p.ID = NewProcessID()
	}
	if err := ValidateProcessID(p.ID); err != nil {
		return p, err
	}
	if p.Deadlock != nil {
		d, err := p.Deadlock.Resolve()
		if err != nil {
			return p, err
		}
		p.Deadlock = &d
	}
	return p.defaults(), nil
}

// Half returns the settings a composer (package combined, package
// migration) hands down, from its resolved p, to a core it builds below
// its own lock manager: p's clock and process id, p's fencing if fenced
// (else none), flat ids and no deadlock detection (the composer's lock
// manager applies both, once), and logger and obs, defaulted as Resolve
// defaults them.
func (p Process) Half(logger *slog.Logger, obs lockstep.Observer, fenced bool) Process {
	h := Process{Clock: p.Clock, ID: p.ID, Logger: logger, Observer: obs}
	if fenced {
		h.Fencing = p.Fencing
	}
	return h.defaults()
}

func (p Process) defaults() Process {
	if p.Clock == nil {
		p.Clock = &clock.Local{}
	}
	if p.Logger == nil {
		p.Logger = slog.New(slog.DiscardHandler)
	}
	if p.Observer == nil {
		p.Observer = lockstep.NopObserver{}
	}
	return p
}

// ValidateSeparator refuses, with a *lockstep.ConfigError, a hierarchy
// separator other than "" (flat ids) or 1 to MaxSeparatorLen bytes of UTF-8
// with no NUL and not only white space, such as "/".
func ValidateSeparator(sep string) error {
	var why string
	switch {
	case sep == "":
		return nil
	case len(sep) > MaxSeparatorLen:
		why = fmt.Sprintf("%d bytes, more than %d", len(sep), MaxSeparatorLen)
	case !utf8.ValidString(sep):
		why = "not valid UTF-8"
	case strings.IndexByte(sep, 0) >= 0:
		why = "contains a NUL byte, which no lock id may hold"
	case strings.TrimSpace(sep) == "":
		why = "only white space, which is too easily typed by accident inside a name"
	default:
		return nil
	}
	return &lockstep.ConfigError{Field: "Separator",
		Reason: fmt.Sprintf("%q is %s: use a short visible string such as \"/\" or \":\", or \"\" for flat ids", sep, why)}
}

// SameClock reports whether a and b are the same clock (false if their
// type cannot be compared): a composer's halves have one clock.
func SameClock(a, b lockstep.Clock) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}
