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
)

func (a *app) inspectCommand(o *options) *cobra.Command {
	c := &cobra.Command{
		Use:   "inspect [--full] <id>",
		Short: "show a lock's queue, owner and legacy cells: owners, ages, TTLs",
		Long: "inspect shows a lock's queue, owner and legacy cells: who holds it in each algorithm, the owners, ages and TTLs.\n" +
			"A lock id that starts with \"-\" goes after \"--\": lockctl inspect -- -odd-id. --output json prints the fields " +
			"the package documentation lists.",
	}
	full := c.Flags().Bool("full", false, "read the whole queue partition, not from its floor (scans every tombstone of the lock's history)")
	return a.leaf(c, o, func(args []string) (command, error) {
		id, err := lockID(args)
		if err != nil {
			return nil, err
		}
		return inspectCmd{id: id, full: *full}, nil
	})
}

type inspectCmd struct {
	id   string
	full bool
}

func (c inspectCmd) run(ctx context.Context, a *app, o *options) error {
	cn, err := a.connect(ctx, o)
	if err != nil {
		return err
	}
	defer cn.Close()
	lc, err := readLock(ctx, cn.store, o.tableNames(), c.id, c.full)
	if err != nil {
		return err
	}
	if o.json() {
		return writeJSON(a.stdout, lc.report(o, a.now()))
	}
	fmt.Fprintf(a.stdout, "lock %q in keyspace %s, read at %s (%v)\n", c.id, o.Keyspace, formatTime(a.now()), o.Consistency)
	lc.write(a.stdout, a.now())
	return nil
}

// write prints the cells as of now: the queue partition, then the legacy
// rows, each under a line saying who holds the lock in that algorithm.
func (lc *lockCells) write(w io.Writer, now time.Time) {
	fmt.Fprintf(w, "\nqueue lock (table %s; modes new, combined): %s\n", lc.queueName, lc.queueStatus())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(lc.owners)+len(lc.queue) > 0 {
		fmt.Fprintln(tw, "  KIND\tOWNER\tACCESS\tENQUEUED\tAGE\tLAST WRITE\tTTL LEFT\t")
		for _, q := range append(append([]queueCell(nil), lc.owners...), lc.queue...) {
			kind := "queue"
			if q.owner {
				kind = "owner"
			}
			enqueued, age := "-", "-" // a holder whose queue cell went with its first renewal
			if q.named != 0 {
				named := time.UnixMicro(q.named)
				enqueued, age = formatTime(named), formatAge(now.Sub(named))
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s ago\t%s\t\n", kind, field(q.id), q.access, enqueued,
				age, formatAge(now.Sub(time.UnixMicro(q.Timestamp))), formatTTL(q.TTL))
		}
	}
	tw.Flush()
	switch {
	case lc.floorErr != nil:
		fmt.Fprintf(w, "  floor: unreadable (%s); the whole partition was read\n", text(lc.floorErr.Error()))
	case lc.floor == 0:
		fmt.Fprintf(w, "  floor: none yet (reads start at the beginning)\n")
	case lc.fullRead:
		fmt.Fprintf(w, "  floor: %s (the whole partition was read)\n", formatTime(time.UnixMicro(lc.floor)))
	default:
		fmt.Fprintf(w, "  floor: %s (cells named before it are not read)\n", formatTime(time.UnixMicro(lc.floor)))
	}
	for _, c := range lc.foreign {
		fmt.Fprintf(w, "  FOREIGN cell %q (written %s ago): no lockstep Locker writes it, so Lock and TryLock of this id "+
			"fail with ErrForeignCell until it is gone; another writer shares the table\n", c.Column, formatAge(now.Sub(time.UnixMicro(c.Timestamp))))
	}

	fmt.Fprintf(w, "\nlegacy lock (tables %s, %s; modes legacy, combined): %s\n", lc.mainName, lc.shadowName, lc.legacyStatus())
	if len(lc.main)+len(lc.shadow) > 0 {
		fmt.Fprintln(tw, "  ROW\tOWNER\tLAST WRITE\tTTL LEFT\t")
		for _, r := range []struct {
			name  string
			cells []lockstep.Cell
		}{{"main", lc.main}, {"shadow", lc.shadow}} {
			for _, c := range r.cells {
				fmt.Fprintf(tw, "  %s\t%s\t%s ago\t%s\t\n", r.name, field(c.Column), formatAge(now.Sub(time.UnixMicro(c.Timestamp))), formatTTL(c.TTL))
			}
		}
		tw.Flush()
	}
}

// queueStatus says who holds the queue lock, as lemma 1 decides it: the
// owner cells, if their accesses are compatible (queuelock's "Lock
// accesses": one exclusive owner, or several sharing).
func (lc *lockCells) queueStatus() string {
	var s string
	switch {
	case len(lc.owners) == 0:
		s = "free"
	case lc.compatibleOwners():
		s = "held by " + lc.holders()
	default:
		ids := make([]string, len(lc.owners))
		for i, q := range lc.owners {
			ids[i] = field(q.id)
		}
		s = fmt.Sprintf("CONTESTED: %d owner cells in conflicting accesses (%s); claimers that see each other back off, "+
			"two that stay are a broken invariant", len(lc.owners), strings.Join(ids, ", "))
	}
	if n := len(lc.queue); n > 0 {
		s += fmt.Sprintf(", %d in line", n)
	}
	return s
}

// compatibleOwners reports whether the live owner cells' accesses are
// pairwise compatible: one holder, or holders sharing the lock.
func (lc *lockCells) compatibleOwners() bool {
	for i, a := range lc.owners {
		for _, b := range lc.owners[i+1:] {
			if !a.access.Compatible(b.access) {
				return false
			}
		}
	}
	return true
}

// holders names the owners, each with its access unless exclusive.
func (lc *lockCells) holders() string {
	ids := make([]string, len(lc.owners))
	for i, q := range lc.owners {
		ids[i] = field(q.id)
		if q.access != lockstep.Exclusive {
			ids[i] += " (" + q.access.String() + ")"
		}
	}
	return strings.Join(ids, ", ")
}

// legacyStatus says who holds the legacy lock: the one main-row cell
// (listing 4, step 1), if there is exactly one.
func (lc *lockCells) legacyStatus() string {
	var s string
	switch len(lc.main) {
	case 0:
		s = "free"
	case 1:
		s = "held by " + field(lc.main[0].Column)
	default:
		s = fmt.Sprintf("BLOCKED: %d cells in the main row; nobody holds it and contenders wait until they expire", len(lc.main))
	}
	if n := len(lc.shadow); n > 0 {
		s += fmt.Sprintf(", %d contender(s) in the shadow row", n)
	}
	return s
}

func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

// formatAge renders a duration to the millisecond. A negative age means the
// writer's clock runs ahead of this machine's.
func formatAge(d time.Duration) string { return d.Round(time.Millisecond).String() }

func formatTTL(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return d.String()
}
