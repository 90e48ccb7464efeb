package migration

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/deref"
)

// FlagSource gives the mode of the next acquisition, or an error that fails
// it. It must be safe for concurrent use.
type FlagSource interface {
	Mode(ctx context.Context) (lockstep.Mode, error)
}

// Static returns a FlagSource that always answers m.
func Static(m lockstep.Mode) FlagSource { return static(m) }

type static lockstep.Mode

func (s static) Mode(context.Context) (lockstep.Mode, error) {
	if m := lockstep.Mode(s); m.Valid() {
		return m, nil
	}
	return lockstep.ModeUnknown, fmt.Errorf("migration: static flag: %w: %v", lockstep.ErrInvalidMode, lockstep.Mode(s))
}

// Env returns a FlagSource reading the environment variable name.
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

// File returns a FlagSource reading a mode name from the file at path, again
// whenever the file changes.
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

// PhaseFlagOptions configure a PhaseFlag; Cache defaults to 1s. Nil means
// defaults.
type PhaseFlagOptions struct {
	Table string
	Cache time.Duration
	Clock lockstep.Clock
}

// PhaseFlag is a FlagSource following the phase: its mode, or combined while a
// move is pending or announced. Safe for concurrent use.
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

// NewPhaseFlag returns a PhaseFlag reading store, which must be global
// (lockstep.ScopeOf): the phase row is fleet-wide.
func NewPhaseFlag(store lockstep.Store, opts *PhaseFlagOptions) (*PhaseFlag, error) {
	o := deref.Of(opts)
	if err := checkFleetStore(store); err != nil {
		return nil, err
	}
	o.Table = cmp.Or(o.Table, DefaultPhaseTable)
	if err := lockstep.ValidateName("Table", o.Table); err != nil {
		return nil, err
	}
	o.Cache = cmp.Or(o.Cache, time.Second)
	if o.Cache < 0 {
		return nil, &lockstep.ConfigError{Field: "Cache", Reason: fmt.Sprintf("%v must not be negative: use 0 for the default (1s) or a positive period", o.Cache)}
	}
	return &PhaseFlag{store: store, table: o.Table, cache: o.Cache, clock: clockOr(o.Clock)}, nil
}

// Mode returns the mode the phase calls for.
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
