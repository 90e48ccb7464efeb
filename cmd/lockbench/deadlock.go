package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// The deadlock scenario measures the deadlock detector
// (lockstep.DeadlockDetection, docs/algorithms.md section 8.5) on the model,
// on virtual time: two processes, each a queue Locker with detection on,
// form one cycle per round — A holds x and B holds y (each as a unit of work,
// the Locker's Unit), then A asks for y and B for x at the same
// instant — and the round ends when one of them fails with ErrDeadlock,
// releases its unit and the other proceeds. It reports how long after the
// cycle formed the victim's error came, and what the detector cost: the
// requests to the wait-record table per second of waiting.

// deadlockRound is one round's outcome.
type deadlockRound struct {
	latency time.Duration // from both second Locks' call to the victim's ErrDeadlock
	waited  time.Duration // both waiters' time in their second Lock, summed
	waits   int64         // requests to the wait-record table during the round
	victims int           // calls that failed with ErrDeadlock (must be 1)
}

// tableCounter counts the requests to one table.
type tableCounter struct {
	lockstep.Store
	table string
	n     atomic.Int64
}

func (s *tableCounter) count(table string) {
	if table == s.table {
		s.n.Add(1)
	}
}

func (s *tableCounter) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	s.count(table)
	return s.Store.Put(ctx, table, row, cells...)
}

func (s *tableCounter) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	s.count(table)
	return s.Store.Delete(ctx, table, row, ts, columns...)
}

func (s *tableCounter) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	s.count(table)
	return s.Store.Read(ctx, table, row, sl)
}

// runSimDeadlock runs rounds cycles on a fresh model store whose requests
// take [minLat, maxLat] of virtual time, with detection det.
func runSimDeadlock(rounds int, det lockstep.DeadlockDetection, minLat, maxLat time.Duration, seed uint64) ([]deadlockRound, error) {
	det, err := det.Resolve()
	if err != nil {
		return nil, err
	}
	clk := model.NewManualClock(0)
	faulty, err := model.NewFaulty(model.New(clk), model.FaultConfig{MinLatency: minLat, MaxLatency: maxLat, Clock: clk,
		Rand: rand.New(rand.NewPCG(seed, 7))})
	if err != nil {
		return nil, err
	}
	store := &tableCounter{Store: faulty, table: det.Table}
	return runDeadlockOn(store, clk, func(work func()) { runVirtual(clk, work) }, rounds, det, seed, "dl")
}

// runDeadlockOn runs rounds cycles on store, timed by clk, inside run (on
// virtual time for the model), on ids under prefix.
func runDeadlockOn(store *tableCounter, clk lockstep.Clock, run func(func()), rounds int, det lockstep.DeadlockDetection, seed uint64, prefix string) ([]deadlockRound, error) {
	var out []deadlockRound
	var runErr error
	run(func() {
		ctx := context.Background()
		var ls [2]*queuelock.Locker
		for i := range ls {
			l, err := queuelock.New(store, &queuelock.Options{Clock: clk, ProcessID: fmt.Sprintf("%s-p%d", prefix, i), Poll: 10 * time.Millisecond,
				Rand: rand.New(rand.NewPCG(seed, uint64(i))), Deadlock: &det})
			if err != nil {
				runErr = err
				return
			}
			defer l.Close(context.WithoutCancel(ctx))
			ls[i] = l
		}
		for r := range rounds {
			res, err := deadlockRoundOn(ctx, clk, store, ls, prefix, r)
			if err != nil {
				runErr = fmt.Errorf("round %d: %w", r+1, err)
				return
			}
			out = append(out, res)
			clk.Sleep(ctx, time.Second) // the records of the round expire or are gone
		}
	})
	return out, runErr
}

// deadlockRoundOn forms one cycle between ls[0] and ls[1] on fresh ids.
func deadlockRoundOn(ctx context.Context, clk lockstep.Clock, store *tableCounter, ls [2]*queuelock.Locker, prefix string, r int) (deadlockRound, error) {
	ids := [2]string{fmt.Sprintf("%s/%d/x", prefix, r), fmt.Sprintf("%s/%d/y", prefix, r)}
	var units [2]lockstep.Unit
	var first [2]lockstep.Lock
	for i := range 2 {
		units[i] = ls[i].Unit(fmt.Sprintf("round %d, p%d", r, i))
		h, err := units[i].Lock(ctx, ids[i])
		if err != nil {
			return deadlockRound{}, err
		}
		first[i] = h
	}
	before := store.n.Load()
	t0 := clk.Now()
	var res deadlockRound
	var mu sync.Mutex
	var wg sync.WaitGroup
	var errs [2]error
	for i := range 2 {
		wg.Go(func() {
			h, err := units[i].Lock(ctx, ids[1-i])
			t := time.Duration(clk.Now()-t0) * time.Microsecond
			mu.Lock()
			res.waited += t
			if errors.Is(err, lockstep.ErrDeadlock) {
				res.victims++
				res.latency = t
			}
			mu.Unlock()
			if err != nil && !errors.Is(err, lockstep.ErrDeadlock) {
				errs[i] = err
			}
			if err != nil { // the victim gives its unit of work up
				errs[i] = errors.Join(errs[i], first[i].Unlock(context.WithoutCancel(ctx)))
				return
			}
			errs[i] = errors.Join(h.Unlock(ctx), first[i].Unlock(ctx))
		})
	}
	wg.Wait()
	res.waits = store.n.Load() - before
	return res, errors.Join(errs[0], errs[1])
}

// deadlockRow is one configuration's rounds.
type deadlockRow struct {
	det    lockstep.DeadlockDetection
	rounds []deadlockRound
}

// printDeadlock prints the scenario's table, one row per configuration.
func printDeadlock(w io.Writer, rows []deadlockRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "After\tEvery\trounds\tErrDeadlock\tlatency min\tp50\tmax\twait-table requests/round\tper waiting second\t")
	for _, row := range rows {
		lat := make([]time.Duration, 0, len(row.rounds))
		var waited time.Duration
		var waits int64
		victims := 0
		for _, r := range row.rounds {
			if r.victims == 1 {
				lat = append(lat, r.latency)
			}
			victims += r.victims
			waited += r.waited
			waits += r.waits
		}
		if len(lat) == 0 || waited <= 0 {
			fmt.Fprintf(tw, "%v\t%v\t%d\t%d\t–\t–\t–\t–\t–\t\n", row.det.After, row.det.Every, len(row.rounds), victims)
			continue
		}
		slices.Sort(lat)
		fmt.Fprintf(tw, "%v\t%v\t%d\t%d\t%s\t%s\t%s\t%.1f\t%.2f\t\n", row.det.After, row.det.Every, len(row.rounds), victims,
			ms(lat[0]), ms(percentile(lat, 50)), ms(lat[len(lat)-1]), float64(waits)/float64(len(row.rounds)), float64(waits)/waited.Seconds())
	}
	tw.Flush()
	fmt.Fprintln(w, "\nOne cycle per round between two queue Lockers with detection on (A holds x and waits for y, B holds y and")
	fmt.Fprintln(w, "waits for x, from one instant). ErrDeadlock: calls that failed with it (one per round is right).")
	fmt.Fprintln(w, "latency: from the two second Locks' call to the victim's error (virtual time on the model). wait-table requests:")
	fmt.Fprintln(w, "reads, writes and deletes of the wait records by both processes during a round, and per second that a")
	fmt.Fprintln(w, "call spent waiting in the round (both waiters summed).")
}

// runDeadlockCommand runs -scenario deadlock: on the model (virtual time,
// so its figures do not depend on the machine) or on a real cluster.
func runDeadlockCommand(o *options) error {
	rounds := o.k
	if !o.given("k") {
		rounds = 20
	}
	dets := []lockstep.DeadlockDetection{{}, {After: 200 * time.Millisecond, Every: 200 * time.Millisecond}}
	run := func(det lockstep.DeadlockDetection) ([]deadlockRound, error) {
		return runSimDeadlock(rounds, det, o.minLat, o.maxLat, o.seed)
	}
	where := fmt.Sprintf("the model, request latency %v..%v, seed %d", o.minLat, o.maxLat, o.seed)
	if o.backend == "cassandra" {
		ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
		defer cancel()
		version, session, cs, err := openBench(ctx, o.real)
		if err != nil {
			return err
		}
		defer session.Close()
		where = fmt.Sprintf("Cassandra %s at %s (keyspace %s, RF %d), wall clock", version, o.real.hosts, o.real.keyspace, o.real.replication)
		tag, cell := runTag(), 0
		run = func(det lockstep.DeadlockDetection) ([]deadlockRound, error) {
			det, err := det.Resolve()
			if err != nil {
				return nil, err
			}
			cell++
			store := &tableCounter{Store: cs, table: det.Table}
			return runDeadlockOn(store, &clock.Local{}, func(work func()) { work() }, rounds, det, o.seed, fmt.Sprintf("dl-%s-%d", tag, cell))
		}
	}
	fmt.Fprintf(os.Stdout, "deadlock detection on %s\n\n", where)
	var rows []deadlockRow
	for _, det := range dets {
		rs, err := run(det)
		if err != nil {
			return err
		}
		det, _ = det.Resolve()
		rows = append(rows, deadlockRow{det: det, rounds: rs})
	}
	printDeadlock(os.Stdout, rows)
	return nil
}
