package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/migration/census"
)

func (a *app) fleetCommand(o *options) *cobra.Command {
	c := &cobra.Command{
		Use:   "fleet",
		Short: "show the census: live processes, their modes and held locks, and what blocks a phase move",
	}
	return a.leaf(c, o, func(args []string) (command, error) {
		return fleetCmd{}, noArgs(args)
	})
}

type fleetCmd struct{}

func (fleetCmd) run(ctx context.Context, a *app, o *options) error {
	cn, err := a.connect(ctx, o)
	if err != nil {
		return err
	}
	defer cn.Close()
	t := o.tableNames()
	entries, err := census.Read(ctx, cn.store, t.FleetCensus)
	if err != nil {
		return err
	}
	ctl, err := controller(cn, o, 0)
	if err != nil {
		return err
	}
	p, err := ctl.Get(ctx)
	if err != nil {
		return err
	}
	if o.json() {
		return writeJSON(a.stdout, fleetReport(o, p, entries, a.now()))
	}
	fmt.Fprintf(a.stdout, "phase: %s\n", describePhase(p))
	fmt.Fprintf(a.stdout, "%d live process(es) in %s.%s\n", len(entries), o.Keyspace, t.FleetCensus)
	writeCensus(a.stdout, entries, a.now())
	for _, to := range neighbours(p.Mode) {
		if b := migration.Blocking(entries, to); len(b) > 0 {
			fmt.Fprintf(a.stdout, "moving to %v: blocked: %s\n", to, text((&migration.MoveError{From: p.Mode, To: to, Blockers: b}).Error()))
		} else {
			fmt.Fprintf(a.stdout, "moving to %v: no live process blocks it\n", to)
		}
	}
	return nil
}

// writeCensus prints one line per entry. SENT is how long ago the process
// sent its entry, by its own clock against this machine's.
func writeCensus(w io.Writer, entries []census.Entry, now time.Time) {
	if len(entries) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  PROCESS\tHOST\tVERSION\tCONFIGURED\tHOLDS\tACQUIRING\tSENT\tTTL LEFT\t")
	for _, e := range entries {
		if e.Err != nil {
			fmt.Fprintf(tw, "  %s\tunreadable entry: %s\t\t\t\t\t\t%s\t\n", field(e.Process), text(e.Err.Error()), formatTTL(e.TTL))
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%v\t%s\t%s\t%s ago\t%s\t\n", field(e.Process), field(e.Host), field(e.Version), e.Configured,
			counts(e.Held), counts(e.Acquiring), formatAge(now.Sub(e.Time)), formatTTL(e.TTL))
	}
	tw.Flush()
}

// counts renders lock counts by mode, e.g. "legacy×1, new×2", or "-".
func counts(m map[lockstep.Mode]int) string {
	var parts []string
	for mode := lockstep.ModeLegacy; mode <= lockstep.ModeNew; mode++ {
		if n := m[mode]; n > 0 {
			parts = append(parts, fmt.Sprintf("%v×%d", mode, n))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// neighbours are the phases one step from m.
func neighbours(m lockstep.Mode) []lockstep.Mode {
	switch m {
	case lockstep.ModeLegacy, lockstep.ModeNew:
		return []lockstep.Mode{lockstep.ModeCombined}
	case lockstep.ModeCombined:
		return []lockstep.Mode{lockstep.ModeLegacy, lockstep.ModeNew}
	}
	return nil
}
