package nemesis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/lockstep-go/lockstep/robustness/cluster"
)

// Nemesis is one fault: Inject puts it in place, Heal undoes it. Both are
// idempotent; Heal after Heal, or without Inject, does nothing.
type Nemesis interface {
	Name() string
	Inject(ctx context.Context) error
	Heal(ctx context.Context) error
}

// tablePrefix is the nftables table name prefix of one cluster's nemeses.
func tablePrefix(c *cluster.Cluster) string {
	return strings.ReplaceAll(c.Config().CGroup, "-", "_")
}

// ownTable says whether table belongs to the nemeses whose prefix is
// prefix: prefix, "_", a name. The "_" keeps the cluster at IP offset 10
// ("lockstep_robust10") off the tables of the one at 100
// ("lockstep_robust100_part").
func ownTable(prefix, table string) bool { return strings.HasPrefix(table, prefix+"_") }

// Cleanup undoes every fault any nemesis of this package could have left on
// cluster c: deletes its nftables tables, SIGCONTs its nodes, sets every
// clock offset to 0 and removes every CPU quota. It does not restart killed
// nodes (Down stops the cluster anyway) and does not touch client processes
// (the runner owns and reaps them). Errors are collected, not fatal.
func Cleanup(ctx context.Context, c *cluster.Cluster) error {
	var errs []error
	tables, err := nftTables(ctx)
	if err != nil {
		errs = append(errs, err)
	}
	prefix := tablePrefix(c)
	for _, t := range tables {
		if ownTable(prefix, t) {
			if err := nftDelete(ctx, t); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, n := range c.Nodes {
		if pid, err := c.PID(n.N); err == nil {
			if err := syscall.Kill(pid, syscall.SIGCONT); err != nil && !errors.Is(err, syscall.ESRCH) {
				errs = append(errs, fmt.Errorf("nemesis: SIGCONT node %d: %w", n.N, err))
			}
		}
		if n.ClockFile != "" {
			if err := writeClock(n.ClockFile, "0"); err != nil {
				errs = append(errs, err)
			}
		}
		if n.CPUGroup != "" {
			if _, err := os.Stat(n.CPUGroup); err == nil {
				if err := setQuota(n.CPUGroup, 0); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	return errors.Join(errs...)
}
