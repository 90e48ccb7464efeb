package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/model/sim"
)

// runVirtual is lockbench's own driver of the model's ManualClock: the
// command cannot use the model's scheduler (model/sim), which needs a
// testing/synctest bubble, and synctest.Test needs a *testing.T. A test has
// one, so here the seed experiment runs a second time on model/sim — the
// same processes, lockers, latency stream and loop as runSimOne, on a
// one-replica simulated cluster — and every acquisition of both runs must
// agree: when Lock returned, how long it waited, when Unlock was called,
// and the requests each process made. A driver that woke a sleeper before
// the goroutines a mover readied had parked, or woke the wrong one, would
// change some of them.

// schedClock is a process's clock on model/sim that remembers the order in
// which goroutines went to sleep, so that sleeps ending at the same moment
// are granted in that order, as ManualClock.WakeNext ends them.
type schedClock struct {
	lockstep.Clock
	proc  *sim.Process
	order *sleepOrder
}

// sleepOrder numbers the sleeps of every process in the order they began.
// Only one simulated goroutine runs at a time; mu is for the race detector's
// sake of the scheduler goroutine reading it.
type sleepOrder struct {
	mu      sync.Mutex
	seq     uint64
	pending map[*pendingSleep]struct{}
	ties    int  // sleeps that ended at the same moment as another
	wrong   bool // the negative control: ties go to the sleep that began last
}

type pendingSleep struct {
	proc     *sim.Process
	deadline int64
	seq      uint64
}

// Go and Resumed pass the lock code's goroutines on to the process's clock,
// which names and orders them (model/sim; internal/lifecycle).
func (c schedClock) Go(f func()) { c.Clock.(interface{ Go(func()) }).Go(f) }

func (c schedClock) Resumed(ctx context.Context) {
	c.Clock.(interface{ Resumed(context.Context) }).Resumed(ctx)
}

func (c schedClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 || ctx.Err() != nil {
		return c.Clock.Sleep(ctx, d)
	}
	us := int64((d + time.Microsecond - 1) / time.Microsecond)
	o := c.order
	o.mu.Lock()
	o.seq++
	ps := &pendingSleep{proc: c.proc, deadline: c.Clock.Elapsed() + us, seq: o.seq}
	o.pending[ps] = struct{}{}
	o.mu.Unlock()
	defer func() {
		o.mu.Lock()
		delete(o.pending, ps)
		o.mu.Unlock()
	}()
	return c.Clock.Sleep(ctx, d)
}

// next picks the yield a ManualClock driver would let run: a store request
// (the goroutine that just woke reaching the store, which the model serves
// at once after its latency), else the runnable sleep with the earliest
// deadline that began first.
func (o *sleepOrder) next(ys []*sim.Yield) *sim.Yield {
	var best *sim.Yield
	var bestSeq uint64
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, y := range ys {
		if y.Kind != sim.Sleep {
			return y
		}
		seq := ^uint64(0)
		for ps := range o.pending {
			if ps.proc == y.Proc && ps.deadline == y.Deadline && ps.seq < seq {
				seq = ps.seq
			}
		}
		if best != nil && y.Deadline == best.Deadline {
			o.ties++
		}
		if best == nil || y.Deadline < best.Deadline || (y.Deadline == best.Deadline && (seq < bestSeq) != o.wrong) {
			best, bestSeq = y, seq
		}
	}
	return best
}

// benign is the Chooser that picks every replica: a one-replica cluster
// with nothing in flight.
type benign struct{}

func (benign) Choose(string, int) int { return 0 }

// runOnModelScheduler is runSimOne on model/sim; it also returns how many
// ties between sleeps the scheduler broke. wrongTies breaks them the wrong
// way round.
func runOnModelScheduler(t *testing.T, cfg seedConfig, a algorithm, p int, wrongTies bool) (run, int) {
	r := run{algorithm: a, processes: p, procs: make([]procResult, p)}
	order := &sleepOrder{pending: make(map[*pendingSleep]struct{}), wrong: wrongTies}
	synctest.Test(t, func(t *testing.T) {
		s := sim.New(sim.Config{Cluster: model.ClusterConfig{Replicas: 1}})
		streams := newLatencyStreams(cfg.seed, p) // runSimOne's
		start := s.Now()
		done := 0
		for i := range p {
			proc := s.AddProcess(fmt.Sprintf("p%d", i))
			clk := schedClock{Clock: proc.Clock(), proc: proc, order: order}
			store := streams.store(proc.Store(), clk, cfg.minLatency, cfg.maxLatency)
			c, err := newLockstepContender(a, lockerParams{store: store, clock: clk, process: proc.Name,
				poll: cfg.poll, rand: rand.New(rand.NewPCG(cfg.seed, uint64(i)))})
			if err != nil {
				t.Fatal(err)
			}
			proc.Go(func(ctx context.Context) {
				_ = clk.Sleep(ctx, time.Duration(i+1)*time.Microsecond)
				res, err := contend(ctx, c, clk, start, loopConfig{id: seedLockID, k: cfg.k, hold: cfg.hold})
				if err != nil {
					t.Errorf("process %d: %v", i, err)
				}
				if err := c.Close(context.WithoutCancel(ctx)); err != nil {
					t.Errorf("process %d: close: %v", i, err)
				}
				r.procs[i] = res
				done++
			})
		}
		s.Settle()
		for done < p {
			ys := s.Runnable()
			if len(ys) == 0 {
				if !s.Tick() {
					t.Fatalf("%d of %d processes finished and nothing can run at %d", done, p, s.Now())
				}
				continue
			}
			s.Grant(order.next(ys), benign{})
		}
		r.elapsed = time.Duration(s.Now()-start) * time.Microsecond
		if !s.Close() {
			t.Error("goroutines still waiting after the simulation closed")
		}
	})
	return r, order.ties
}

// agreementRuns are the runs compared: every algorithm of this module with
// 1, 3 and 5 processes, 30 acquisitions each, or LOCKBENCH_AGREEMENT_K (the
// command's default is 1000).
func agreementRuns(t *testing.T, f func(t *testing.T, cfg seedConfig, a algorithm, p int)) {
	cfg := smallConfig()
	// 60: with the queue lock's paced reads (internal/queue/pace.go) 30
	// acquisitions met too few tied sleeps for the negative control below
	// to see one broken the wrong way.
	cfg.k = 60
	if k := os.Getenv("LOCKBENCH_AGREEMENT_K"); k != "" {
		n, err := strconv.Atoi(k)
		if err != nil || n <= 0 {
			t.Fatalf("LOCKBENCH_AGREEMENT_K=%q: want a positive number of acquisitions", k)
		}
		cfg.k = n
	}
	for _, a := range lockstepAlgorithms {
		for _, p := range []int{1, 3, 5} {
			t.Run(fmt.Sprintf("%s/%d", a, p), func(t *testing.T) { f(t, cfg, a, p) })
		}
	}
}

// differences returns how the processes of got and want differ.
func differences(got, want run) []string {
	var out []string
	for i := range got.procs {
		if g, w := got.procs[i], want.procs[i]; !reflect.DeepEqual(g, w) {
			out = append(out, fmt.Sprintf("process %d:\nrunVirtual: %+v\nmodel/sim:  %+v", i, g, w))
		}
	}
	if got.elapsed != want.elapsed {
		out = append(out, fmt.Sprintf("runVirtual ran %v of virtual time, model/sim %v", got.elapsed, want.elapsed))
	}
	return out
}

func TestRunVirtual_AgreesWithTheModelSchedulerOnEveryAcquisition(t *testing.T) {
	agreementRuns(t, func(t *testing.T, cfg seedConfig, a algorithm, p int) {
		got, err := runSimOne(cfg, a, p)
		if err != nil {
			t.Fatal(err)
		}
		for i, pr := range got.procs {
			if len(pr.Waits) != cfg.k {
				t.Fatalf("process %d made %d acquisitions, want %d", i, len(pr.Waits), cfg.k)
			}
		}
		// One model/sim run: it gives one run per seed (model/sim orders
		// every goroutine by the program's own names for them).
		want, _ := runOnModelScheduler(t, cfg, a, p, false)
		for _, d := range differences(got, want) {
			t.Error(d)
		}
	})
}

// The negative control: the comparison notices a single scheduling
// decision taken otherwise. Where two sleeps end at the same moment and
// model/sim grants the one that began last, some run must differ.
func TestRunVirtual_ComparisonCatchesTiesBrokenTheWrongWay(t *testing.T) {
	ties, differed := 0, 0
	agreementRuns(t, func(t *testing.T, cfg seedConfig, a algorithm, p int) {
		wrong, n := runOnModelScheduler(t, cfg, a, p, true)
		got, err := runSimOne(cfg, a, p)
		if err != nil {
			t.Fatal(err)
		}
		ties += n
		if len(differences(got, wrong)) > 0 {
			differed++
		}
	})
	t.Logf("%d ties broken the wrong way; %d of 9 runs differed", ties, differed)
	if ties == 0 {
		t.Skip("no two sleeps ended at the same moment in these runs: nothing to break")
	}
	if differed == 0 {
		t.Errorf("%d ties broken the wrong way and every run still agreed: the comparison is blind to the order", ties)
	}
}
