package sim_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
	"github.com/lockstep-go/lockstep/model/sim"
)

// jitter lets the Go runtime run other goroutines a random number of times,
// from an unseeded source: what the runtime does differs run to run.
func jitter() {
	for range rand.IntN(20) {
		runtime.Gosched()
	}
}

// runSpawning runs one process whose two root goroutines each start two
// children through the clock; every goroutine jitters before each sleep, and
// one parent cancels a child's sleep. It returns the scheduler's trace.
func runSpawning(t *testing.T, seed uint64) string {
	var trace []string
	synctest.Test(t, func(t *testing.T) {
		s := sim.New(sim.Config{})
		s.Trace = func(e string) { trace = append(trace, e) }
		p := s.AddProcess("p0")
		clk := p.Clock()
		for i := range 2 {
			p.Go(func(ctx context.Context) {
				cctx, cancel := context.WithCancel(ctx)
				for j := range 2 {
					lifecycle.Go(clk, func() {
						for k := range 3 {
							jitter()
							if clk.Sleep(cctx, time.Duration(1+(i+j+k)%2)*time.Millisecond) != nil {
								return
							}
						}
					})
				}
				jitter()
				_ = clk.Sleep(ctx, 2*time.Millisecond)
				cancel() // wakes a child asleep with cctx: it goes on only when granted
				_ = clk.Sleep(ctx, time.Millisecond)
			})
		}
		ch := randChooser{rand.New(rand.NewPCG(seed, 7))}
		for range 200 {
			if !s.Step(ch) {
				break
			}
		}
		if !s.Close() {
			t.Error("yields left after Close")
		}
	})
	return strings.Join(trace, "\n")
}

func TestSim_OneSeedOneRunWhateverTheRuntimeDoes(t *testing.T) {
	for seed := range uint64(4) {
		first := runSpawning(t, seed)
		if !strings.Contains(first, "resume goroutine") || !strings.Contains(first, "start goroutine 1.1") {
			t.Fatalf("seed %d: the run has no start or resume to order:\n%s", seed, first)
		}
		for range 10 {
			if again := runSpawning(t, seed); again != first {
				t.Fatalf("seed %d: two runs differ:\n%s\n---\n%s", seed, first, again)
			}
		}
	}
}

// A goroutine the simulator does not know reaching a yield is a bug of the
// code under test: the simulator panics at once, naming the rule.
func TestSim_GoroutineNotStartedThroughTheClockPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := sim.New(sim.Config{})
		p := s.AddProcess("p0")
		got := make(chan any, 1)
		go func() {
			defer func() { got <- recover() }()
			_ = p.Clock().Sleep(context.Background(), time.Millisecond)
		}()
		r := <-got
		if msg := fmt.Sprint(r); !strings.Contains(msg, "start it through the process's clock") {
			t.Fatalf("got %v, want the simulator's panic", r)
		}
		s.Close()
	})
}

// OnStore hears that a request is done before its caller goes on: a
// checker reading the harness's state there sees it as the request's
// answer left it, never with the caller's next steps half taken. With the
// caller released first, it ran beside OnStore (synctest.Wait lets it run
// to its next yield here, so it always does).
func TestSim_OnStoreHearsADoneRequestBeforeItsCallerGoesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := sim.New(sim.Config{})
		p := s.AddProcess("p0")
		var after atomic.Bool // the caller's first step after its Put
		var seen []bool
		s.OnStore = func(e sim.StoreEvent) {
			if e.Done {
				synctest.Wait() // whatever else can run, runs
				seen = append(seen, after.Load())
			}
		}
		p.Go(func(ctx context.Context) {
			if err := p.Store().Put(ctx, "t", "r", lockstep.Cell{Column: "c", Value: []byte("v"), Timestamp: 1, TTL: time.Second}); err != nil {
				t.Error(err)
			}
			after.Store(true)
			_ = p.Clock().Sleep(ctx, time.Second)
		})
		s.Settle()
		ys := s.Runnable()
		if len(ys) != 1 || ys[0].Kind != sim.Put {
			t.Fatalf("runnable: %v, want the put", ys)
		}
		s.Grant(ys[0], zeroChooser{})
		if !slices.Equal(seen, []bool{false}) || !after.Load() {
			t.Errorf("OnStore saw the caller's step after its Put: %v (want [false]); the caller went on: %v", seen, after.Load())
		}
		s.Close()
	})
}
