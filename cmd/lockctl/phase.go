package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/migration"
)

var phaseGetSpec = &spec{
	path:    "phase get",
	usage:   "phase get",
	summary: "show the fleet's migration phase and the modes it allows",
	bind: func(*flag.FlagSet) builder {
		return func(args []string, _ *options) (command, error) {
			return phaseGetCmd{}, noArgs(args)
		}
	},
}

var phaseSetSpec = &spec{
	path:    "phase set",
	usage:   "phase set [--drain D] <legacy|combined|new>",
	summary: "move the phase one step (legacy <-> combined <-> new), refused while the census forbids it",
	bind: func(fs *flag.FlagSet) builder {
		drain := fs.Duration("drain", 0, "wait this long for blocking processes to go away, before writing the intent, then refuse")
		return func(args []string, _ *options) (command, error) {
			switch len(args) {
			case 0:
				return nil, errors.New("missing mode (legacy, combined or new)")
			case 1:
			default:
				return nil, fmt.Errorf("want one mode, got %q", args)
			}
			m, err := lockstep.ParseMode(args[0])
			if err != nil {
				return nil, err
			}
			if *drain < 0 {
				return nil, fmt.Errorf("--drain %v must not be negative", *drain)
			}
			return phaseSetCmd{mode: m, drain: *drain}, nil
		}
	},
}

// controller returns the phase Controller on the tables o names.
func controller(c *conn, o *options, drain time.Duration) (*migration.Controller, error) {
	t := o.tableNames()
	return migration.NewController(c.store, &migration.ControllerOptions{PhaseTable: t.FleetPhase, CensusTable: t.FleetCensus, Drain: drain})
}

type phaseGetCmd struct{}

func (phaseGetCmd) run(ctx context.Context, a *app, o *options) error {
	cn, err := a.connect(ctx, o)
	if err != nil {
		return err
	}
	defer cn.Close()
	ctl, err := controller(cn, o, 0)
	if err != nil {
		return err
	}
	p, err := ctl.Get(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "phase: %s\n", describePhase(p))
	return nil
}

type phaseSetCmd struct {
	mode  lockstep.Mode
	drain time.Duration
}

// run moves the phase with migration.Controller.Set, which checks the census
// (and waits up to the drain for blockers); a refusal names the processes
// that blocked it.
func (c phaseSetCmd) run(ctx context.Context, a *app, o *options) error {
	cn, err := a.connect(ctx, o)
	if err != nil {
		return err
	}
	defer cn.Close()
	ctl, err := controller(cn, o, c.drain)
	if err != nil {
		return err
	}
	before, err := ctl.Get(ctx)
	if err != nil {
		return err
	}
	if err := ctl.Set(ctx, c.mode); err != nil {
		return err
	}
	after, err := ctl.Get(ctx)
	if err != nil {
		return err
	}
	if before == after {
		fmt.Fprintf(a.stdout, "phase: %s (unchanged)\n", describePhase(after))
		return nil
	}
	fmt.Fprintf(a.stdout, "phase: %v -> %s\n", before, describePhase(after))
	return nil
}

// describePhase renders a phase with the modes processes may lock in.
func describePhase(p migration.Phase) string {
	var allowed []string
	for m := lockstep.ModeLegacy; m <= lockstep.ModeNew; m++ {
		if p.Allows(m) {
			allowed = append(allowed, m.String())
		}
	}
	s := fmt.Sprintf("%v (processes may take locks in: %s)", p, strings.Join(allowed, ", "))
	if p.Pending() {
		s += "; a move is in progress: run phase set again to finish or revert it"
	}
	return s
}
