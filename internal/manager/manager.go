package manager

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/deadlock"
)

// MaxSeparatorLen is the longest hierarchy separator New accepts, in bytes.
const MaxSeparatorLen = 8

// Manager plans a Locker's groups, hierarchical ids and reentrant
// acquisitions, and keeps what lies between their members (the package doc
// says how); the Locker takes each member itself, driving a Run. Safe for
// concurrent use; a Locker has one Manager for its whole life.
type Manager struct {
	sep      string
	overlaps bool               // sep can overlap itself: ids are then checked at their segments' edges (plan.go)
	clock    lockstep.Clock     // for internal/lifecycle.Resumed; may be nil
	det      *deadlock.Detector // nil: deadlock detection off (wait.go)
	knobs    TestingKnobs       // planted defects; zero in production

	// mu guards reg, the reentrancy registry: the member each (holder, id)
	// holds. Only acquisitions for a unit of work (Who.Holder) touch it.
	mu  sync.Mutex
	reg map[regKey]*member
	// handles are the group Locks each holder has not released yet
	// (UnlockAll), guarded by mu too.
	handles map[any]map[*Lock]struct{}
}

// regKey names one holder's acquisition of one id.
type regKey struct {
	holder any
	id     string
}

// New returns a Manager. separator is the hierarchy separator: "" for flat
// ids (no ancestors), or 1 to MaxSeparatorLen bytes of UTF-8 with no NUL
// and not only white space, such as "/". A bad separator returns a
// *lockstep.ConfigError.
// clock is the Locker's (nil for none): a call that waited for another of
// the same holder resumes through it (internal/lifecycle.Resumed). det,
// if not nil, publishes the blocking waits and fails the victims of cycles
// among them with lockstep.ErrDeadlock (wait.go; nil: detection off). knobs
// switch on planted defects; nil in production.
func New(separator string, clock lockstep.Clock, det *deadlock.Detector, knobs *TestingKnobs) (*Manager, error) {
	if err := ValidateSeparator(separator); err != nil {
		return nil, err
	}
	m := &Manager{sep: separator, overlaps: selfOverlaps(separator), clock: clock, det: det,
		reg: map[regKey]*member{}, handles: map[any]map[*Lock]struct{}{}}
	if knobs != nil {
		m.knobs = *knobs
	}
	return m, nil
}

// ValidateSeparator returns New's error for a bad separator, nil for a good
// one: a Locker checks its options with it before it builds anything.
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

// Separator returns the hierarchy separator, "" for flat ids.
func (m *Manager) Separator() string { return m.sep }
