package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

func (a *app) releaseCommand(o *options) *cobra.Command {
	c := &cobra.Command{
		Use:   "release --force [--yes] <id>",
		Short: "break-glass: delete every cell of a lock whose owner is dead",
		Long: "release --force deletes every cell of a lock, for an owner known to be dead. It lists the cells and asks " +
			"for confirmation on stdin unless --yes; without --force, or unconfirmed, it is refused (exit 4) and deletes " +
			"nothing. Never use it on an owner that may be alive: see the package documentation.",
	}
	force := c.Flags().Bool("force", false, "required: delete cells other processes wrote")
	yes := c.Flags().Bool("yes", false, "do not ask for confirmation on stdin")
	return a.leaf(c, o, func(args []string) (command, error) {
		id, err := lockID(args)
		if err != nil {
			return nil, err
		}
		if !*force {
			return nil, refusedError(errors.New("refusing without --force: release deletes cells other processes wrote; " +
				"use it only for an owner known to be dead"))
		}
		return releaseCmd{id: id, yes: *yes}, nil
	})
}

type releaseCmd struct {
	id  string
	yes bool
}

// run lists the lock's cells, asks for confirmation, deletes each cell with
// a tombstone at its own write timestamp (see the package documentation for
// why), logs every deletion to stderr and reads the lock again to report
// cells their owners wrote back.
func (c releaseCmd) run(ctx context.Context, a *app, o *options) error {
	cn, err := a.connect(ctx, o)
	if err != nil {
		return err
	}
	defer cn.Close()
	tables := o.tableNames()
	lc, err := readLock(ctx, cn.store, tables, c.id, false)
	if err != nil {
		return err
	}
	cells := lc.deletable()
	if len(cells) == 0 {
		fmt.Fprintf(a.stdout, "lock %q has no live cells in keyspace %s: nothing to release\n", c.id, o.Keyspace)
		return nil
	}
	now := a.now()
	fmt.Fprintf(a.stdout, "lock %q in keyspace %s has %d live cell(s):\n", c.id, o.Keyspace, len(cells))
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  TABLE\tCOLUMN\tTIMESTAMP\tLAST WRITE\tTTL LEFT\t")
	recent := 0
	for _, tc := range cells {
		age := now.Sub(time.UnixMicro(tc.Timestamp))
		note := ""
		if tc.TTL > 0 && age < (age+tc.TTL)/3 {
			recent++
			note = "  <- recently renewed"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s ago\t%s\t%s\n", tc.table, field(tc.Column), tc.Timestamp, formatAge(age), formatTTL(tc.TTL), note)
	}
	tw.Flush()
	if recent > 0 {
		fmt.Fprintf(a.stdout, "WARNING: %d cell(s) were written within the last third of their TTL: their owners may be alive "+
			"and renewing. Deleting a live owner's cells lets another process take the lock while it still works.\n", recent)
	}
	if !c.yes {
		if err := confirm(a.stdin, a.stdout, fmt.Sprintf("Delete these %d cell(s)? Type yes to continue: ", len(cells))); err != nil {
			return err
		}
	}

	log := slog.New(slog.NewTextHandler(a.stderr, nil))
	var errs []error
	deleted := 0
	for _, tc := range cells {
		attrs := []any{"keyspace", o.Keyspace, "table", tc.table, "row", c.id, "column", tc.Column,
			"timestamp", tc.Timestamp, "written", formatTime(time.UnixMicro(tc.Timestamp))}
		if err := cn.store.Delete(ctx, tc.table, c.id, tc.Timestamp, tc.Column); err != nil {
			log.Error("lockctl release: delete failed", append(attrs, "err", err)...)
			errs = append(errs, fmt.Errorf("deleting %s %q: %w", tc.table, tc.Column, err))
			continue
		}
		deleted++
		log.Info("lockctl release: deleted cell", attrs...)
	}
	fmt.Fprintf(a.stdout, "deleted %d of %d cell(s) of lock %q\n", deleted, len(cells), c.id)

	after, err := readLock(ctx, cn.store, tables, c.id, false)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("reading the lock again: %w", err))...)
	}
	was := make(map[[2]string]int64, len(cells)) // (table, column) -> timestamp deleted
	for _, tc := range cells {
		was[[2]string{tc.table, tc.Column}] = tc.Timestamp
	}
	for _, tc := range after.deletable() {
		ts, ok := was[[2]string{tc.table, tc.Column}]
		switch {
		case !ok:
			fmt.Fprintf(a.stdout, "new since: %s %q (timestamp %d)\n", tc.table, tc.Column, tc.Timestamp)
		case tc.Timestamp > ts:
			fmt.Fprintf(a.stdout, "rewritten since: %s %q (timestamp %d): its owner is alive and renewing\n", tc.table, tc.Column, tc.Timestamp)
		default:
			fmt.Fprintf(a.stdout, "still live: %s %q (timestamp %d)\n", tc.table, tc.Column, tc.Timestamp)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("release %q: %w", c.id, errors.Join(errs...))
	}
	return nil
}

// confirm asks prompt on out and succeeds only if the answer read from in is
// "y" or "yes".
func confirm(in io.Reader, out io.Writer, prompt string) error {
	fmt.Fprint(out, prompt)
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading the confirmation: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return refusedError(errors.New("not confirmed: nothing deleted"))
}
