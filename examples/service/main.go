package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

type config struct {
	hosts    string
	keyspace string
	process  string
	replicas int
	id       string
	hold     time.Duration
	report   time.Duration
	phase    time.Duration
	wait     time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.hosts, "hosts", "", "Cassandra contact points (comma-separated); empty: the embedded model")
	flag.StringVar(&c.keyspace, "keyspace", "locks", "the lock keyspace (create it with lockctl schema apply)")
	flag.StringVar(&c.process, "process", "", "process id prefix (default: host name and pid)")
	flag.IntVar(&c.replicas, "replicas", 0, "replicas in this process (default 3 embedded, 1 on a cluster)")
	flag.StringVar(&c.id, "id", "invoice/42", "the lock id the replicas contend for")
	flag.DurationVar(&c.hold, "hold", 5*time.Millisecond, "how long each lock is held")
	flag.DurationVar(&c.report, "report", 2*time.Second, "how often a replica prints its counts")
	flag.DurationVar(&c.wait, "wait", time.Second, "how long one Lock call may wait (then the replica re-reads its flag and tries again)")
	flag.DurationVar(&c.phase, "phase", 2*time.Second, "embedded: how long each phase lasts")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	if c.hosts == "" {
		err = embedded(ctx, c, os.Stdout)
	} else {
		err = cluster(ctx, c, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "service:", err)
		os.Exit(1)
	}
}

// replica is one process's Locker and what it counted.
type replica struct {
	name                             string
	locker                           *migration.Locker
	byMode                           [lockstep.ModeNew + 1]atomic.Int64
	refused, timedOut, lost, overlap atomic.Int64
}

// run takes the lock until ctx ends; inside is the fleet's occupancy (the
// embedded run checks that it never exceeds 1) and counter the guarded
// count.
func (r *replica) run(ctx context.Context, c config, inside *atomic.Int32, counter *int64) error {
	for ctx.Err() == nil {
		// A bounded wait, as a service's request deadline would give: a Lock
		// call keeps the mode it started in, so an unbounded one started in
		// legacy would keep the fleet from leaving legacy while it waits.
		wctx, cancel := context.WithTimeout(ctx, c.wait)
		l, err := r.locker.Lock(wctx, c.id)
		cancel()
		switch {
		case errors.Is(err, lockstep.ErrIncompatibleMode):
			r.refused.Add(1) // the flag lags the phase by its cache: retry
			time.Sleep(20 * time.Millisecond)
			continue
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, context.DeadlineExceeded):
			r.timedOut.Add(1)
			continue
		case err != nil:
			return fmt.Errorf("%s: %w", r.name, err)
		}
		r.byMode[l.Mode()].Add(1)
		if inside.Add(1) != 1 {
			r.overlap.Add(1)
		}
		v := *counter
		time.Sleep(c.hold)
		*counter = v + 1
		inside.Add(-1)
		select {
		case <-l.Lost():
			r.lost.Add(1)
		default:
		}
		if err := l.Unlock(context.WithoutCancel(ctx)); err != nil && !errors.Is(err, lockstep.ErrLost) {
			return fmt.Errorf("%s: unlock: %w", r.name, err)
		}
	}
	return nil
}

func (r *replica) String() string {
	return fmt.Sprintf("%s: locks legacy %d, combined %d, new %d; waits timed out %d, refused %d, lost %d",
		r.name, r.byMode[lockstep.ModeLegacy].Load(), r.byMode[lockstep.ModeCombined].Load(),
		r.byMode[lockstep.ModeNew].Load(), r.timedOut.Load(), r.refused.Load(), r.lost.Load())
}

// fleet starts n replicas on store, each following the phase.
func fleet(store lockstep.Store, c config, n int) ([]*replica, error) {
	prefix := c.process
	if prefix == "" {
		h, _ := os.Hostname()
		prefix = fmt.Sprintf("%s-%d", sanitize(h), os.Getpid())
	}
	rs := make([]*replica, n)
	for i := range rs {
		flag, err := migration.NewPhaseFlag(store, &migration.PhaseFlagOptions{Cache: 200 * time.Millisecond})
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("%s-%d", prefix, i+1)
		if n == 1 && c.process != "" {
			name = c.process // one replica named by the operator: the census shows exactly that name
		}
		l, err := migration.New(store, flag, &migration.Options{ProcessID: name})
		if err != nil {
			return nil, err
		}
		rs[i] = &replica{name: name, locker: l}
	}
	return rs, nil
}

// embedded is the walk-through on the model: replicas plus the operator.
func embedded(ctx context.Context, c config, out io.Writer) error {
	if c.replicas == 0 {
		c.replicas = 3
	}
	store := model.New(&clock.Local{})
	rs, err := fleet(store, c, c.replicas)
	if err != nil {
		return err
	}
	ctl, err := migration.NewController(store, &migration.ControllerOptions{Drain: 10 * time.Second, Poll: 100 * time.Millisecond})
	if err != nil {
		return err
	}
	work, stop := context.WithCancel(ctx)
	var inside atomic.Int32
	var counter int64
	var wg sync.WaitGroup
	errs := make(chan error, len(rs))
	for _, r := range rs {
		wg.Go(func() { errs <- r.run(work, c, &inside, &counter) })
	}
	start := time.Now()
	step := func(what string) {
		fmt.Fprintf(out, "%6.1fs %s\n", time.Since(start).Seconds(), what)
		for _, r := range rs {
			fmt.Fprintf(out, "         %v\n", r)
		}
	}
	time.Sleep(c.phase)
	step("phase legacy: every replica takes legacy locks")
	var moveErr error
	for _, target := range []lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew} {
		t0 := time.Now()
		if moveErr = ctl.Set(ctx, target); moveErr != nil {
			break
		}
		took := time.Since(t0).Round(time.Millisecond)
		time.Sleep(c.phase)
		step(fmt.Sprintf("phase %v (the move took %v)", target, took))
	}
	stop()
	wg.Wait()
	close(errs)
	for _, r := range rs {
		_ = r.locker.Close(ctx)
	}
	for err := range errs {
		if err != nil {
			return err
		}
	}
	if moveErr != nil {
		return moveErr
	}
	var total, overlaps int64
	for _, r := range rs {
		for m := range r.byMode {
			total += r.byMode[m].Load()
		}
		overlaps += r.overlap.Load()
	}
	fmt.Fprintf(out, "%6.1fs done: %d locks, counter %d, overlaps %d\n", time.Since(start).Seconds(), total, counter, overlaps)
	if counter != total || overlaps != 0 {
		return fmt.Errorf("counter %d for %d locks, %d overlaps: mutual exclusion broken", counter, total, overlaps)
	}
	return nil
}

// cluster runs replicas on a real cluster until ctx ends.
func cluster(ctx context.Context, c config, out io.Writer) error {
	if c.replicas == 0 {
		c.replicas = 1
	}
	cl := gocql.NewCluster(splitHosts(c.hosts)...)
	cl.Timeout = 5 * time.Second
	session, err := cl.CreateSession()
	if err != nil {
		return fmt.Errorf("connect to %s: %w (is the node up? scripts/cassandra up)", c.hosts, err)
	}
	defer session.Close()
	store, err := cassandra.New(session, c.keyspace)
	if err != nil {
		return err
	}
	rs, err := fleet(store, c, c.replicas)
	if err != nil {
		return err
	}
	var inside atomic.Int32 // this process's replicas only
	var counter int64
	errs := make(chan error, len(rs))
	for _, r := range rs {
		go func() { errs <- r.run(ctx, c, &inside, &counter) }()
	}
	tick := time.NewTicker(c.report)
	defer tick.Stop()
	for done := 0; done < len(rs); {
		select {
		case err := <-errs:
			done++
			if err != nil {
				return err
			}
		case <-tick.C:
			for _, r := range rs {
				fmt.Fprintln(out, r)
			}
		}
	}
	for _, r := range rs {
		fmt.Fprintln(out, r)
		_ = r.locker.Close(context.WithoutCancel(ctx))
	}
	return nil
}
