package migration

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
)

// FlagSource says which mode the next acquisition uses. A Locker asks it once
// per Lock or TryLock call (and its census heartbeat asks it periodically), so
// a source may change its answer at any time; a lock keeps the mode it was
// taken in. Any feature-flag SDK fits behind it in a few lines (see the
// package documentation).
//
// Mode returns a valid mode or an error; ctx bounds any I/O it does. An error
// makes that acquisition fail and leaves nothing behind. Implementations must
// be safe for concurrent use.
type FlagSource interface {
	Mode(ctx context.Context) (lockstep.Mode, error)
}

// Static returns a FlagSource that always answers m. If m is not a valid mode,
// every call returns an error wrapping lockstep.ErrInvalidMode.
func Static(m lockstep.Mode) FlagSource { return static(m) }

type static lockstep.Mode

func (s static) Mode(context.Context) (lockstep.Mode, error) {
	if m := lockstep.Mode(s); m.Valid() {
		return m, nil
	}
	return lockstep.ModeUnknown, fmt.Errorf("migration: static flag: %w: %v", lockstep.ErrInvalidMode, lockstep.Mode(s))
}

// Env returns a FlagSource that reads the environment variable name on every
// call and parses it with lockstep.ParseMode. An unset, empty or unknown value
// returns an error wrapping lockstep.ErrInvalidMode.
func Env(name string) FlagSource { return env(name) }

type env string

func (e env) Mode(context.Context) (lockstep.Mode, error) {
	v, ok := os.LookupEnv(string(e))
	if !ok || v == "" {
		return lockstep.ModeUnknown, fmt.Errorf("migration: flag $%s: %w: not set (set it to legacy, combined or new)", string(e), lockstep.ErrInvalidMode)
	}
	m, err := lockstep.ParseMode(v)
	if err != nil {
		return lockstep.ModeUnknown, fmt.Errorf("migration: flag $%s: %w", string(e), err)
	}
	return m, nil
}

// File returns a FlagSource that reads a mode name from the file at path
// (surrounding white space ignored). Every call stats the file; it is re-read
// only when its modification time or size changed, so the flag can be flipped
// by rewriting the file (a Kubernetes ConfigMap mount, a config-management
// run) without restarting the process. A missing file or an unknown mode
// returns an error (wrapping lockstep.ErrInvalidMode for the latter); the next
// call tries again.
func File(path string) FlagSource { return &file{path: path} }

type file struct {
	path string

	mu    sync.Mutex // guards the cache
	valid bool
	mtime time.Time
	size  int64
	mode  lockstep.Mode
}

func (f *file) Mode(context.Context) (lockstep.Mode, error) {
	fi, err := os.Stat(f.path)
	if err != nil {
		return lockstep.ModeUnknown, fmt.Errorf("migration: flag file: %w (write legacy, combined or new to it)", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.valid && fi.ModTime().Equal(f.mtime) && fi.Size() == f.size {
		return f.mode, nil
	}
	b, err := os.ReadFile(f.path)
	if err != nil {
		return lockstep.ModeUnknown, fmt.Errorf("migration: flag file: %w", err)
	}
	m, err := lockstep.ParseMode(string(b))
	if err != nil {
		f.valid = false
		return lockstep.ModeUnknown, fmt.Errorf("migration: flag file %s: %w", f.path, err)
	}
	// Cache under the stat taken before the read: if the file changed in
	// between, the next call sees a different stat and reads it again.
	f.valid, f.mtime, f.size, f.mode = true, fi.ModTime(), fi.Size(), m
	return m, nil
}

// PhaseFlagOptions configure a PhaseFlag. Nil means defaults.
type PhaseFlagOptions struct {
	// Table is the phase table. Default DefaultPhaseTable.
	Table string
	// Cache is how long an answer is reused before the phase is read again.
	// Default 1s. Staleness costs no safety: the Locker's guard reads the
	// phase itself (see the package documentation).
	Cache time.Duration
	// Clock times the cache. Default a clock.Local.
	Clock lockstep.Clock
}

// PhaseFlag is a FlagSource that follows the fleet-wide phase in the store:
// the committed phase's mode, and Combined while a move is pending or a
// Controller announces one from the committed phase (a cell beside the phase, see the package documentation) —
// Combined is allowed in every phase and by every pending one. A fleet driven
// by it moves when the operator moves the phase with a Controller: it
// switches to Combined as soon as the Controller starts draining, before the
// intent, so the drain can clear without any of its locks being refused.
// Safe for concurrent use.
type PhaseFlag struct {
	store lockstep.Store
	table string
	cache time.Duration
	clock lockstep.Clock

	mu        sync.Mutex // guards the cache
	cached    bool
	readAt    int64 // elapsed µs
	phase     Phase
	announced Phase // the move a Controller announced, if any
}

// NewPhaseFlag returns a PhaseFlag reading store. Invalid options return an
// error wrapping lockstep.ErrInvalidConfig.
func NewPhaseFlag(store lockstep.Store, opts *PhaseFlagOptions) (*PhaseFlag, error) {
	var o PhaseFlagOptions
	if opts != nil {
		o = *opts
	}
	if store == nil {
		return nil, &lockstep.ConfigError{Field: "Store", Reason: "nil store: pass a cassandra.Store (cassandra.New) or, in tests, a model.Store"}
	}
	if o.Table == "" {
		o.Table = DefaultPhaseTable
	}
	if err := lockstep.ValidateName("Table", o.Table); err != nil {
		return nil, err
	}
	if o.Cache == 0 {
		o.Cache = time.Second
	}
	if o.Cache < 0 {
		return nil, &lockstep.ConfigError{Field: "Cache", Reason: fmt.Sprintf("%v must not be negative: use 0 for the default (1s) or a positive period", o.Cache)}
	}
	return &PhaseFlag{store: store, table: o.Table, cache: o.Cache, clock: clockOr(o.Clock)}, nil
}

// Mode returns the mode the phase calls for, reading the phase cell unless an
// answer younger than the cache period exists. ctx bounds the read; on error
// nothing is cached.
func (f *PhaseFlag) Mode(ctx context.Context) (lockstep.Mode, error) {
	now := f.clock.Elapsed()
	f.mu.Lock()
	p, a, fresh := f.phase, f.announced, f.cached && now-f.readAt < f.cache.Microseconds()
	f.mu.Unlock()
	if !fresh {
		var err error
		if p, a, err = readPhaseRow(ctx, f.store, f.table); err != nil {
			return lockstep.ModeUnknown, err
		}
		f.mu.Lock()
		f.phase, f.announced, f.readAt, f.cached = p, a, now, true
		f.mu.Unlock()
	}
	if p.Pending() || a.Pending() && a.Mode == p.Mode {
		return lockstep.ModeCombined, nil
	}
	return p.Mode, nil
}
