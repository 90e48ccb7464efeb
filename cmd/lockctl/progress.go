package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/migration/census"
)

// reportDrain reports on stderr, every a.progressEvery while phase set
// drains towards to, what the move waits for: the live processes the census
// shows using a mode the target forbids. The Controller says nothing while
// it waits, so this reads the census itself (reads only; a line may lag the
// Controller's own read by up to its Poll). The returned stop ends the
// reports and waits for them to end.
func (a *app) reportDrain(ctx context.Context, cn *conn, o *options, from, to lockstep.Mode, drain time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	start := a.now()
	table := o.tableNames().FleetCensus
	go func() {
		defer close(done)
		tick := time.NewTicker(a.progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			entries, err := census.Read(ctx, cn.store, table)
			if ctx.Err() != nil {
				return
			}
			head := fmt.Sprintf("lockctl: phase set %v -> %v: draining, %v of %v", from, to, a.now().Sub(start).Round(time.Second), drain)
			switch b := migration.Blocking(entries, to); {
			case err != nil:
				fmt.Fprintf(a.stderr, "%s: cannot read the census: %s\n", head, oneLine(err))
			case len(b) == 0:
				fmt.Fprintf(a.stderr, "%s: no blocker left in the census; moving\n", head)
			default:
				fmt.Fprintf(a.stderr, "%s: waiting for %d process(es) to stop using a mode phase %v forbids: %s\n",
					head, len(b), to, describeBlockers(b))
			}
		}
	}()
	return func() { cancel(); <-done }
}

// describeBlockers names each blocking process, its host and the modes it
// uses, e.g. "web-1 on h1 (uses legacy)".
func describeBlockers(b []census.Entry) string {
	names := make([]string, 0, len(b))
	for _, e := range b {
		if e.Err != nil {
			names = append(names, field(e.Process)+" (unreadable entry)")
			continue
		}
		var modes []string
		for _, m := range e.InUse() {
			modes = append(modes, m.String())
		}
		names = append(names, fmt.Sprintf("%s on %s (uses %s)", field(e.Process), field(e.Host), strings.Join(modes, ", ")))
	}
	return strings.Join(names, "; ")
}
