package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

// openStore returns the store lockd serves and a description of it for the
// first line it prints. This build serves the embedded model only, and
// refuses to start when the environment names a cluster (refuseCluster);
// connecting to one goes here once lockctl's connection options are shared.
func openStore(ctx context.Context, o *options, getenv func(string) string) (lockstep.Store, string, error) {
	if err := o.refuseCluster(getenv); err != nil {
		return nil, "", err
	}
	store, err := embeddedStore(ctx, lockstep.ModeNew)
	return store, "embedded model", err
}

// embeddedStore returns the in-memory model store, with the phase moved to
// phase (a fresh embedded fleet has no legacy process to wait for).
func embeddedStore(ctx context.Context, phase lockstep.Mode) (lockstep.Store, error) {
	store := model.New(&clock.Local{})
	ctl, err := migration.NewController(store, nil)
	if err != nil {
		return nil, err
	}
	for _, step := range []lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew} {
		if phase < step {
			break
		}
		if err := ctl.Set(ctx, step); err != nil {
			return nil, fmt.Errorf("embedded store: set phase %v: %w", step, err)
		}
	}
	return store, nil
}

// join builds the migration.Locker of this lockd on store: an ordinary
// fleet process, in the census, following the phase (PhaseFlag), with
// hierarchical ids and fencing tokens.
func join(store lockstep.Store, o *options, log *slog.Logger) (*migration.Locker, error) {
	clk := &clock.Local{}
	flag, err := migration.NewPhaseFlag(store, &migration.PhaseFlagOptions{Clock: clk})
	if err != nil {
		return nil, err
	}
	opts := &migration.Options{Clock: clk, ProcessID: o.processID, Separator: o.separator, Logger: log, Version: "lockd"}
	if o.fencing {
		if opts.Fencing, err = clock.NewGlobal(store, "", clk); err != nil {
			return nil, err
		}
	}
	l, err := migration.New(store, flag, opts)
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := l.Ready(rctx); err != nil {
		_ = l.Close(context.Background())
		return nil, err
	}
	return l, nil
}
