package semaphore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

func newLocker(t *testing.T, store lockstep.Store, name string) *queuelock.Locker {
	t.Helper()
	lk, err := queuelock.New(store, &queuelock.Options{ProcessID: name, TTL: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lk.Close(context.Background()) })
	return lk
}

func TestNew_RefusesBadInputWithAFix(t *testing.T) {
	lk := newLocker(t, model.New(&clock.Local{}), "a")
	for name, c := range map[string]struct {
		lk   lockstep.Locker
		id   string
		n    int
		opts *Options
		want error
		says string
	}{
		"nil locker":    {nil, "s", 2, nil, lockstep.ErrInvalidConfig, "pass a Locker"},
		"zero holders":  {lk, "s", 0, nil, lockstep.ErrInvalidConfig, "admits 1 to"},
		"too many":      {lk, "s", MaxSize + 1, nil, lockstep.ErrInvalidConfig, "admits 1 to"},
		"empty id":      {lk, "", 2, nil, lockstep.ErrInvalidID, "name the resource"},
		"long id":       {lk, strings.Repeat("x", lockstep.MaxIDLen), 2, nil, lockstep.ErrInvalidID, "slot ids are"},
		"negative wait": {lk, "s", 2, &Options{Wait: -time.Second}, lockstep.ErrInvalidConfig, "negative"},
	} {
		_, err := New(c.lk, c.id, c.n, c.opts)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: New = %v, want an error wrapping %v that says %q", name, err, c.want, c.says)
		}
	}
}

// Under contention — three processes, three goroutines each, on a
// semaphore of two — never more than two hold at once, both slots are
// used, and every caller gets through.
func TestSemaphore_AtMostNHoldUnderContention(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n, rounds = 2, 4
		store := model.New(&clock.Local{})
		var holding, most atomic.Int32
		var slots [n]atomic.Int32
		var wg sync.WaitGroup
		done := atomic.Int32{}
		for _, name := range []string{"a", "b", "c"} {
			s, err := New(newLocker(t, store, name), "sem", n, &Options{Wait: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				wg.Go(func() {
					ctx := context.Background()
					for range rounds {
						p, err := s.Acquire(ctx)
						if err != nil {
							t.Error(err)
							return
						}
						h := holding.Add(1)
						for m := most.Load(); h > m && !most.CompareAndSwap(m, h); m = most.Load() {
						}
						if slots[p.Slot()].Add(1) != 1 {
							t.Errorf("slot %d held twice", p.Slot())
						}
						time.Sleep(200 * time.Millisecond)
						slots[p.Slot()].Add(-1)
						holding.Add(-1)
						if err := p.Release(ctx); err != nil {
							t.Error(err)
						}
						done.Add(1)
					}
				})
			}
		}
		wg.Wait()
		if m := most.Load(); m > n {
			t.Fatalf("%d held at once, semaphore of %d", m, n)
		} else if m < n {
			t.Fatalf("at most %d held at once: the semaphore never admitted %d", m, n)
		}
		if d := done.Load(); d != 9*rounds {
			t.Fatalf("%d acquisitions, want %d", d, 9*rounds)
		}
	})
}

// When ctx ends while every slot is held, Acquire returns ctx's error and
// leaves nothing: once the holders release, another process takes both
// slots at once.
func TestSemaphore_CancelledAcquireLeavesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store := model.New(&clock.Local{})
		a, _ := New(newLocker(t, store, "a"), "sem", 2, &Options{Wait: 100 * time.Millisecond})
		b, _ := New(newLocker(t, store, "b"), "sem", 2, nil)
		c, _ := New(newLocker(t, store, "c"), "sem", 2, nil)
		p1, err1 := a.Acquire(ctx)
		p2, err2 := a.Acquire(ctx)
		if err1 != nil || err2 != nil || p1.Slot() == p2.Slot() {
			t.Fatalf("a's two Acquires: %v, %v", err1, err2)
		}
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if _, err := b.Acquire(cctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("b's Acquire = %v, want its ctx's error", err)
		}
		_ = p1.Release(ctx)
		_ = p2.Release(ctx)
		q1, err1 := c.TryAcquire(ctx)
		q2, err2 := c.TryAcquire(ctx)
		if err1 != nil || err2 != nil {
			t.Fatalf("c could not take both slots after b gave up: %v, %v", err1, err2)
		}
		if _, err := c.TryAcquire(ctx); !errors.Is(err, lockstep.ErrLocked) {
			t.Fatalf("a third TryAcquire = %v, want ErrLocked", err)
		}
		_ = q1.Release(ctx)
		_ = q2.Release(ctx)
	})
}

// A closed Locker is an error no retry changes: Acquire returns it at once.
func TestSemaphore_ClosedLockerFailsAtOnce(t *testing.T) {
	lk := newLocker(t, model.New(&clock.Local{}), "a")
	s, _ := New(lk, "sem", 3, nil)
	_ = lk.Close(context.Background())
	if _, err := s.Acquire(context.Background()); !errors.Is(err, lockstep.ErrClosed) {
		t.Fatalf("Acquire on a closed Locker = %v, want ErrClosed", err)
	}
}

// A waiter in one slot's line still takes another slot that frees up: it
// tries every slot again after Options.Wait.
func TestSemaphore_WaiterTakesWhicheverSlotFrees(t *testing.T) {
	for _, which := range []int{0, 1} {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			store := model.New(&clock.Local{})
			a, _ := New(newLocker(t, store, "a"), "sem", 2, nil)
			b, _ := New(newLocker(t, store, "b"), "sem", 2, &Options{Wait: 500 * time.Millisecond})
			var ps [2]*Permit
			for range 2 {
				p, err := a.Acquire(ctx)
				if err != nil {
					t.Fatal(err)
				}
				ps[p.Slot()] = p
			}
			got := make(chan *Permit, 1)
			go func() {
				p, err := b.Acquire(ctx)
				if err != nil {
					t.Error(err)
				}
				got <- p
			}()
			time.Sleep(100 * time.Millisecond)
			_ = ps[which].Release(ctx)
			select {
			case p := <-got:
				if p.Slot() != which {
					t.Fatalf("b holds slot %d, want the freed slot %d", p.Slot(), which)
				}
				_ = p.Release(ctx)
			case <-time.After(2 * time.Second):
				t.Fatalf("b did not take slot %d within 4×Wait of its release", which)
			}
			_ = ps[1-which].Release(ctx)
		})
	}
}
