package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// lock runs a command while holding a lock, as flock(1) or etcdctl lock do,
// through a migration.Locker: the lock follows the fleet's phase and
// lockctl shows in the census like any process. Running the command is
// lockchild.go.

const lockUse = "lock [--mode M] [--wait D] [--grace D] <id> -- <command> [args...]"

const lockLong = `lock takes the lock <id>, runs <command> with its arguments (no shell) with
stdin, stdout and stderr passed through, and releases the lock when the
command exits, exiting with the command's status (128+N if signal N ended it).

The lock is taken through a migration.Locker: it is listed in the census, and
its mode is the one the fleet's phase calls for (the phase's mode, combined
while a move is pending) unless --mode names one, which the phase must allow.
Every lock carries a fencing token from the global time table.

The command's environment is lockctl's plus LOCKSTEP_LOCK_ID,
LOCKSTEP_FENCING_TOKEN and LOCKSTEP_LOCK_OWNER.

If the lock is lost while the command runs (its lease could not be renewed),
lockctl stops the command (SIGTERM, then SIGKILL after --grace), says so on
stderr and exits 5. On SIGINT or SIGTERM it forwards the signal to the command,
waits for it (SIGKILL after --grace), releases the lock and exits with the
command's status.

Exit codes of lockctl itself, when the command did not run: 1 failure,
2 usage error, 3 cluster unreachable, 4 refused (the lock is held: --wait 0,
or --wait ran out; or the phase forbids --mode), 128+N interrupted by signal N
while waiting. They are always announced by a "lockctl:" line on stderr.`

func (a *app) lockCommand(o *options) *cobra.Command {
	c := &cobra.Command{
		Use:   lockUse,
		Short: "run a command while holding a lock; release it when the command exits",
		Long:  lockLong,
		Example: "  lockctl lock nightly/report -- ./report.sh --day today\n" +
			"  lockctl lock --wait 0 invoice/42 -- reconcile 42\n" +
			"  lockctl lock --wait 5m --grace 30s --mode combined reindex -- /usr/local/bin/reindex",
	}
	mode := c.Flags().String("mode", "", "legacy, combined or new; the phase must allow it (default: the mode the fleet's phase calls for)")
	wait := c.Flags().Duration("wait", 0, "give up if the lock is not taken within this long; 0 fails at once if it is held (default: wait until interrupted)")
	grace := c.Flags().Duration("grace", 10*time.Second, "how long a command told to stop (SIGTERM, or the signal lockctl got) has before SIGKILL")
	return a.leaf(c, o, func(args []string) (command, error) {
		w := waitForever
		if c.Flags().Changed("wait") {
			w = *wait
		}
		return parseLock(args, c.ArgsLenAtDash(), *mode, w, *grace)
	})
}

// waitForever is lockCmd.wait without --wait: wait until interrupted.
const waitForever time.Duration = -1

type lockCmd struct {
	id   string
	mode lockstep.Mode // ModeUnknown: follow the phase
	wait time.Duration // waitForever, 0 (TryLock) or a bound
	// grace is how long a command told to stop has before SIGKILL.
	grace time.Duration
	path  string   // the command, as exec.LookPath found it
	argv  []string // the command as given, and its arguments
}

// parseLock checks lock's command line: one id before "--", a command
// after it that can be found, a known mode and durations that are not
// negative. dash is the number of arguments before "--" (-1: none).
func parseLock(args []string, dash int, mode string, wait, grace time.Duration) (command, error) {
	const form = "lockctl lock <id> -- <command> [args...]"
	switch {
	case dash < 0 && len(args) == 0:
		return nil, fmt.Errorf("missing lock id and command: want %s", form)
	case dash < 0:
		return nil, fmt.Errorf("missing -- between the lock id and the command: want %s (the -- keeps the command's own flags from being read as lockctl's)", form)
	case dash == 0:
		return nil, fmt.Errorf("missing lock id before --: want %s", form)
	case dash > 1:
		return nil, fmt.Errorf("want one lock id before --, got %d arguments: %q; put the command after --", dash, args[:dash])
	case len(args) == dash:
		return nil, fmt.Errorf("missing command after --: want %s", form)
	}
	id, err := lockID(args[:1])
	if err != nil {
		return nil, err
	}
	c := lockCmd{id: id, wait: wait, grace: grace, argv: args[dash:]}
	if mode != "" {
		if c.mode, err = lockstep.ParseMode(mode); err != nil {
			return nil, fmt.Errorf("--mode: %w, or leave --mode out to follow the fleet's phase", err)
		}
	}
	if wait < 0 && wait != waitForever {
		return nil, fmt.Errorf("--wait %v must not be negative: 0 fails at once if the lock is held; leave --wait out to wait until interrupted", wait)
	}
	if grace < 0 {
		return nil, fmt.Errorf("--grace %v must not be negative: it is how long the command has to exit after SIGTERM", grace)
	}
	if c.path, err = exec.LookPath(c.argv[0]); err != nil {
		return nil, fmt.Errorf("command %q: %w; give a path or a program on $PATH (no shell runs it: for a pipeline, use -- sh -c '...')", c.argv[0], err)
	}
	return c, nil
}

// run takes the lock, runs the command under it (lockchild.go) and releases
// it. A failure to take the lock leaves nothing behind (the Locker cleans
// up its cells and census entry) and the command does not run.
func (c lockCmd) run(ctx context.Context, a *app, o *options) error {
	cn, err := a.connect(ctx, o)
	if err != nil {
		return err
	}
	defer cn.Close()
	lk, err := c.locker(cn.store, o, a.clock)
	if err != nil {
		return err
	}
	cleanup := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.WithoutCancel(ctx), o.Timeout)
	}
	l, err := c.acquire(ctx, lk)
	if err != nil {
		cctx, cancel := cleanup()
		_ = lk.Close(cctx) // nothing held; the census entry expires if this fails
		cancel()
		return c.acquireError(ctx, err)
	}
	runErr := a.runHolding(ctx, c, l)
	cctx, cancel := cleanup()
	defer cancel()
	relErr := errors.Join(l.Unlock(cctx), lk.Close(cctx))
	var lost *lostError
	if relErr != nil && !errors.As(runErr, &lost) {
		// The lost line says it all; otherwise the command's status
		// stays the exit code and this is only a warning.
		fmt.Fprintf(a.stderr, "lockctl: warning: releasing lock %q: %s; cells left behind expire within their TTL\n", c.id, oneLine(relErr))
	}
	return runErr
}

// locker builds the migration Locker lock takes its lock with: on the
// tables o names, fenced by the global time table, its mode from --mode or
// else from the phase, with a process id that says it is lockctl.
func (c lockCmd) locker(store lockstep.Store, o *options, clk lockstep.Clock) (*migration.Locker, error) {
	t := o.tableNames()
	flag := migration.Static(c.mode)
	if c.mode == lockstep.ModeUnknown {
		pf, err := migration.NewPhaseFlag(store, &migration.PhaseFlagOptions{Table: t.FleetPhase, Clock: clk})
		if err != nil {
			return nil, err
		}
		flag = pf
	}
	fence, err := clock.NewGlobal(store, t.GlobalTime, clk)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	return migration.New(store, flag, &migration.Options{
		Clock:       clk,
		ProcessID:   processID(host),
		Queue:       &queuelock.Options{Table: t.QueueLock},
		Legacy:      &shadowlock.Options{MainTable: t.LegacyMain, ShadowTable: t.LegacyShadow},
		Fencing:     fence,
		CensusTable: t.FleetCensus,
		PhaseTable:  t.FleetPhase,
	})
}

// acquire takes the lock as --wait says: TryLock for 0, else Lock bounded
// by the wait (if any) and by ctx, which a signal ends.
func (c lockCmd) acquire(ctx context.Context, lk *migration.Locker) (lockstep.Lock, error) {
	switch {
	case c.wait == 0:
		return lk.TryLock(ctx, c.id)
	case c.wait > 0:
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.wait)
		defer cancel()
	}
	return lk.Lock(ctx, c.id)
}

// acquireError explains why the lock was not taken, with lock's exit code:
// held (4), the phase forbids --mode (4), interrupted (128+signal), or a
// failure (as the other commands).
func (c lockCmd) acquireError(ctx context.Context, err error) error {
	var me *migration.ModeError
	switch {
	case ctx.Err() != nil:
		sig := interruption(ctx)
		return &exitError{code: 128 + int(sig), err: fmt.Errorf("interrupted (%v) while waiting for lock %q; the command did not run", sig, c.id)}
	case errors.Is(err, lockstep.ErrLocked):
		return refusedError(fmt.Errorf("lock %q is held by another owner and --wait is 0; the command did not run "+
			"(lockctl inspect %s shows the holder; give --wait D to wait for it): %w", c.id, quoteArg(c.id), err))
	case errors.Is(err, context.DeadlineExceeded) && c.wait > 0:
		return refusedError(fmt.Errorf("lock %q not taken within --wait %v; the command did not run "+
			"(lockctl inspect %s shows the holder): %w", c.id, c.wait, quoteArg(c.id), err))
	case errors.As(err, &me):
		return refusedError(&hinted{err: fmt.Errorf("lock %q: --mode %v is not allowed while the fleet's phase is %v: %w",
			c.id, me.Configured, me.Phase, lockstep.ErrIncompatibleMode),
			hint: fmt.Sprintf("give --mode %s, or leave --mode out to follow the phase; the command did not run", allowedModes(me.Phase))})
	}
	return err
}

// interruption returns the signal that ended ctx (main's context names it),
// or SIGTERM when something else did.
func interruption(ctx context.Context) syscall.Signal {
	var sr signalReceived
	if errors.As(context.Cause(ctx), &sr) {
		if s, ok := sr.sig.(syscall.Signal); ok {
			return s
		}
	}
	return syscall.SIGTERM
}

// allowedModes lists the modes p allows, "combined or new".
func allowedModes(p migration.Phase) string {
	var ms []string
	for m := lockstep.ModeLegacy; m <= lockstep.ModeNew; m++ {
		if p.Allows(m) {
			ms = append(ms, m.String())
		}
	}
	return strings.Join(ms, " or ")
}

// quoteArg quotes an id for a command line the user may paste, putting it
// after -- if it looks like a flag.
func quoteArg(id string) string {
	q := id
	if strings.ContainsAny(id, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
		q = "'" + strings.ReplaceAll(id, "'", `'\''`) + "'"
	}
	if strings.HasPrefix(id, "-") {
		q = "-- " + q
	}
	return q
}
