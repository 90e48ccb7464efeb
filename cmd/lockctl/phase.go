package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/migration"
)

func (a *app) phaseGetCommand(o *options) *cobra.Command {
	c := &cobra.Command{Use: "get", Short: "show the fleet's migration phase and the modes it allows"}
	return a.leaf(c, o, func(args []string) (command, error) {
		return phaseGetCmd{}, noArgs(args)
	})
}

func (a *app) phaseSetCommand(o *options) *cobra.Command {
	c := &cobra.Command{
		Use:       "set [--drain D] <legacy|combined|new>",
		Short:     "move the phase one step (legacy <-> combined <-> new), refused while the census forbids it",
		ValidArgs: []string{"legacy", "combined", "new"},
		Long: "set moves the phase one step (legacy <-> combined <-> new). It is refused (exit 4), naming the processes " +
			"that block it, while the census shows a live process using a mode the target forbids. With --drain it first " +
			"waits up to that long for them to switch, reporting on stderr every few seconds what it waits for.",
	}
	drain := c.Flags().Duration("drain", 0, "wait this long for blocking processes to go away, before writing the intent, then refuse")
	return a.leaf(c, o, func(args []string) (command, error) {
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
	})
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
	if o.json() {
		return writeJSON(a.stdout, phaseReport(p))
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
	if c.drain > 0 {
		stop := a.reportDrain(ctx, cn, o, before.Mode, c.mode, c.drain)
		err = ctl.Set(ctx, c.mode)
		stop()
	} else {
		err = ctl.Set(ctx, c.mode)
	}
	if err != nil {
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
