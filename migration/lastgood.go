package migration

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
)

// DefaultFlagStaleFor is how long a Locker keeps answering its flag source's
// last good mode while the source fails, unless Options.FlagStaleFor says
// otherwise: long enough to ride out a ConfigMap remount, a config-management
// run rewriting a file or a feature-flag service's restart, short enough that
// an operator who broke the flag hears of it within a minute.
const DefaultFlagStaleFor = 30 * time.Second

// FlagOptions configure KeepLastGood. Nil means defaults.
type FlagOptions struct {
	// StaleFor is how long after its last good answer a failing source is
	// still answered with that answer. Default DefaultFlagStaleFor; negative
	// turns the stale answer off (every failure is returned).
	StaleFor time.Duration
	// Clock times StaleFor, on elapsed time. Default a clock.Local.
	Clock lockstep.Clock
	// Logger receives a Warn when the source starts failing and a stale
	// answer is served, and another when StaleFor has run out. Default
	// discards.
	Logger *slog.Logger
}

// KeepLastGood wraps src so that an error from it is answered with the last
// mode it did return, as long as that answer is at most StaleFor old (on
// elapsed time); past that, and before any good answer, the error is
// returned, saying how long the source has failed and what to do. A call
// whose ctx is done returns the source's error as it is. migration.New wraps
// every flag source this way (Options.FlagStaleFor); use KeepLastGood
// directly for a source read elsewhere.
//
// Serving a stale answer is safe for the reason every flag answer is: a
// Locker never trusts its flag. The mode it returns goes through the census
// and the phase guard like any other (see the package documentation), so a
// stale mode is refused exactly when a live flag saying the same would be;
// it admits nothing a flag that had not been flipped yet could not. What a
// stale answer costs is time: a fleet keeps the old mode up to StaleFor
// longer, so a Controller's Drain should allow for it. Invalid options
// return an error wrapping lockstep.ErrInvalidConfig.
func KeepLastGood(src FlagSource, opts *FlagOptions) (FlagSource, error) {
	var o FlagOptions
	if opts != nil {
		o = *opts
	}
	if src == nil {
		return nil, &lockstep.ConfigError{Field: "FlagSource", Reason: "nil flag source: pass Static, Env, File, a PhaseFlag or your own"}
	}
	if o.StaleFor == 0 {
		o.StaleFor = DefaultFlagStaleFor
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &lastGood{src: src, staleFor: o.StaleFor, clock: clockOr(o.Clock), logger: o.Logger}, nil
}

type lastGood struct {
	src      FlagSource
	staleFor time.Duration // negative: never stale
	clock    lockstep.Clock
	logger   *slog.Logger

	mu       sync.Mutex
	good     bool
	mode     lockstep.Mode
	at       int64 // elapsed µs of the last good answer's call
	failing  bool  // in an outage: the last call failed
	expired  bool  // warned that StaleFor ran out
	failedAt int64 // elapsed µs of the outage's first failure
}

func (f *lastGood) Mode(ctx context.Context) (lockstep.Mode, error) {
	start := f.clock.Elapsed()
	m, err := f.src.Mode(ctx)
	if err == nil && !m.Valid() {
		err = fmt.Errorf("%w: flag source returned %v", lockstep.ErrInvalidMode, m)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		if f.failing {
			f.logger.Info("migration: mode flag answers again", "mode", m.String())
		}
		f.good, f.mode, f.at, f.failing, f.expired = true, m, start, false, false
		return m, nil
	}
	if ctx.Err() != nil || f.staleFor < 0 {
		return lockstep.ModeUnknown, err
	}
	now := f.clock.Elapsed()
	first := !f.failing
	if first {
		f.failing, f.failedAt = true, now
	}
	if !f.good {
		return lockstep.ModeUnknown, fmt.Errorf("%w (no good answer yet to fall back on: fix the flag source)", err)
	}
	age := time.Duration(now-f.at) * time.Microsecond
	if age <= f.staleFor {
		if first {
			f.logger.Warn("migration: mode flag failing; serving its last good answer",
				"mode", f.mode.String(), "age", age, "stale_for", f.staleFor, "err", err)
		}
		return f.mode, nil
	}
	if !f.expired {
		f.expired = true
		f.logger.Warn("migration: mode flag failing for longer than it may be served stale; acquisitions fail until it answers",
			"last_good", f.mode.String(), "age", age, "stale_for", f.staleFor, "err", err)
	}
	return lockstep.ModeUnknown, fmt.Errorf("%w (failing for %v, last good answer %v is %v old, more than FlagStaleFor %v: fix the flag source, or raise FlagStaleFor)",
		err, time.Duration(now-f.failedAt)*time.Microsecond, f.mode, age.Round(time.Millisecond), f.staleFor)
}
