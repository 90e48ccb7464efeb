package migration

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/deref"
)

// defaultFlagStaleFor is Options.FlagStaleFor's default.
const defaultFlagStaleFor = 30 * time.Second

// defaultCensusTTL is Options.CensusTTL's default.
const defaultCensusTTL = 30 * time.Second

// flagOptions configure keepLastGood: StaleFor defaults to
// defaultFlagStaleFor, and a negative one turns it off. Nil means defaults.
type flagOptions struct {
	StaleFor time.Duration
	Clock    lockstep.Clock
	Logger   *slog.Logger
}

// keepLastGood wraps src so that its errors are answered with its last good
// mode for up to StaleFor. New wraps every flag source this way
// (Options.FlagStaleFor).
func keepLastGood(src FlagSource, opts *flagOptions) (FlagSource, error) {
	o := deref.Of(opts)
	if src == nil {
		return nil, &lockstep.ConfigError{Field: "FlagSource", Reason: "nil flag source: pass Static, Env, File, a PhaseFlag or your own"}
	}
	o.StaleFor = cmp.Or(o.StaleFor, defaultFlagStaleFor)
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
	seq      uint64 // counts calls' starts and failures' ends, under mu
	good     bool
	mode     lockstep.Mode
	at       int64 // elapsed µs of the last good answer's call
	failing  bool  // in an outage: the last call failed
	expired  bool  // warned that StaleFor ran out
	failedAt int64 // elapsed µs of the outage's first failure
	// failedSeq is seq when the latest failure returned: an answer from a
	// call that started before it (concurrent calls: a heartbeat's read
	// beside a Lock's) may predate that failure, so it does not end the
	// outage — else each such overlap logged a recovery and a new outage.
	failedSeq uint64
}

func (f *lastGood) Mode(ctx context.Context) (lockstep.Mode, error) {
	start := f.clock.Elapsed()
	f.mu.Lock()
	f.seq++
	startSeq := f.seq
	f.mu.Unlock()
	m, err := f.src.Mode(ctx)
	if err == nil && !m.Valid() {
		err = fmt.Errorf("%w: flag source returned %v", lockstep.ErrInvalidMode, m)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		if f.failing && startSeq < f.failedSeq {
			// Began before the latest failure returned: its answer may be
			// older than that failure, so the outage goes on (the answer is
			// still a good one, and the freshest if none came later).
			if start >= f.at {
				f.good, f.mode, f.at = true, m, start
			}
			return m, nil
		}
		if f.failing {
			f.logger.Info("migration: mode flag answers again", "mode", m.String())
		}
		f.good, f.mode, f.at, f.failing, f.expired = true, m, start, false, false
		return m, nil
	}
	f.seq++
	f.failedSeq = f.seq
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
