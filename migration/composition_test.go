package migration

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/queuelock"
)

// queueWatch wraps a store and, after every request to the queue table's row
// "id", counts the distinct owners with a queue cell there: the process's
// contenders in the store. Requests are serialized, so each count is of one
// state.
type queueWatch struct {
	lockstep.Store
	mu  sync.Mutex
	max int
}

func (w *queueWatch) after(ctx context.Context, table, row string) {
	if table != queuelock.DefaultTable || row != "id" {
		return
	}
	cells, err := w.Store.Read(ctx, table, row, lockstep.Slice{})
	if err != nil {
		return
	}
	owners := map[string]bool{}
	for _, c := range cells {
		if _, owner, err := layout.ParseQueueColumn(c.Column); err == nil {
			owners[owner] = true
		}
	}
	w.max = max(w.max, len(owners))
}

func (w *queueWatch) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.Store.Put(ctx, table, row, cells...)
	w.after(ctx, table, row)
	return err
}

func (w *queueWatch) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.Store.Delete(ctx, table, row, ts, columns...)
	w.after(ctx, table, row)
	return err
}

// Goroutines of one process contending for one id while its flag flips
// between new and combined keep exactly one contender in the store: both
// modes take their queue lock from the one queue Locker of the process, whose
// goroutines queue in-process (internal/lifecycle, Turns). Two queue Lockers, one per mode,
// would put two queue cells of one process in line.
func TestLocker_OneRemoteContenderAcrossFlagFlips(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		setPhase(t, newController(t, s, 0), lockstep.ModeCombined, lockstep.ModeNew)
		w := &queueWatch{Store: s}
		flag := flagOf(lockstep.ModeNew)
		l := newProcess(t, w, "p", flag)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for i := range 6 {
					if (g+i)%2 == 0 {
						flag.set(lockstep.ModeCombined)
					} else {
						flag.set(lockstep.ModeNew)
					}
					h, err := l.Lock(ctx, "id")
					if err != nil {
						t.Error(err)
						return
					}
					time.Sleep(5 * time.Millisecond)
					if err := h.Unlock(ctx); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		if w.max != 1 {
			t.Fatalf("at most %d queue cells of one process were in line at once; want 1", w.max)
		}
	})
}

// events records what an Observer is told.
type events struct {
	mu       sync.Mutex
	acquired []lockstep.AcquireEvent
	released []lockstep.ReleaseEvent
}

func (e *events) ObserveAcquire(_ context.Context, ev lockstep.AcquireEvent) {
	e.mu.Lock()
	e.acquired = append(e.acquired, ev)
	e.mu.Unlock()
}

func (e *events) ObserveRelease(_ context.Context, ev lockstep.ReleaseEvent) {
	e.mu.Lock()
	e.released = append(e.released, ev)
	e.mu.Unlock()
}

func (e *events) ObserveLease(context.Context, lockstep.LeaseEvent) {}

// Every acquisition through the migration Locker is one AcquireEvent and
// its Unlock one ReleaseEvent, each with the mode the flag asked for — a
// combined lock is not reported as one new and one legacy acquisition — and
// the lock a caller gets is fenced in every mode.
func TestLocker_OneEventPerAcquisitionWithItsMode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		for _, path := range [][]lockstep.Mode{{lockstep.ModeLegacy}, {lockstep.ModeCombined}, {lockstep.ModeCombined, lockstep.ModeNew}} {
			s := newStore()
			setPhase(t, newController(t, s, 0), path...)
			want := path[len(path)-1]
			obs := &events{}
			o := testOptions(1)
			o.Observer = obs
			clk := &clock.Local{}
			g, err := clock.NewGlobal(s, "", clk)
			if err != nil {
				t.Fatal(err)
			}
			o.Fencing = g
			l, err := New(s, flagOf(want), withIdentity(o, clk, "p"))
			if err != nil {
				t.Fatal(err)
			}
			h, err := l.Lock(ctx, "id")
			if err != nil {
				t.Fatal(err)
			}
			if f, ok := h.(lockstep.Fenced); !ok || f.Token() == 0 {
				t.Errorf("%v: lock is not fenced (or has token 0)", want)
			}
			if err := h.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if len(obs.acquired) != 1 || obs.acquired[0].Mode != want || !obs.acquired[0].Acquired {
				t.Errorf("%v: acquire events %+v; want one, acquired, mode %v", want, obs.acquired, want)
			}
			if len(obs.released) != 1 || obs.released[0].Mode != want {
				t.Errorf("%v: release events %+v; want one, mode %v", want, obs.released, want)
			}
		}
	})
}
