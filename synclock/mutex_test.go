package synclock

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

func newMutex(t *testing.T, lk lockstep.Locker, opts *Options) *Mutex {
	t.Helper()
	m, err := New(lk, "m", opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// recovered runs f and returns what it panicked with, nil if nothing.
func recovered(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

func TestNew_RefusesBadInput(t *testing.T) {
	lk := newLocker(t, model.New(&clock.Local{}), "a")
	for name, c := range map[string]struct {
		lk   lockstep.Locker
		id   string
		opts *Options
		want error
	}{
		"nil locker":       {nil, "m", nil, lockstep.ErrInvalidConfig},
		"empty id":         {lk, "", nil, lockstep.ErrInvalidID},
		"negative timeout": {lk, "m", &Options{Timeout: -time.Second}, lockstep.ErrInvalidConfig},
		"negative unlock":  {lk, "m", &Options{UnlockTimeout: -time.Second}, lockstep.ErrInvalidConfig},
	} {
		if _, err := New(c.lk, c.id, c.opts); !errors.Is(err, c.want) {
			t.Errorf("%s: New = %v, want an error wrapping %v", name, err, c.want)
		}
	}
}

// Two processes' Mutexes, two goroutines each, exclude each other: a
// counter read and written back non-atomically under the lock loses no
// increment, and no two holders are ever inside at once.
func TestMutex_ExcludesAcrossProcessesAndGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := model.New(&clock.Local{})
		var inside atomic.Int32
		counter := 0
		var wg sync.WaitGroup
		for _, name := range []string{"a", "b"} {
			m := newMutex(t, newLocker(t, store, name), nil)
			for range 2 {
				wg.Go(func() {
					for range 10 {
						m.Lock()
						if inside.Add(1) != 1 {
							t.Error("two holders inside at once")
						}
						c := counter
						time.Sleep(10 * time.Millisecond)
						counter = c + 1
						inside.Add(-1)
						m.Unlock()
					}
				})
			}
		}
		wg.Wait()
		if counter != 40 {
			t.Fatalf("counter = %d, want 40", counter)
		}
	})
}

func TestMutex_UnlockOfUnlockedPanics(t *testing.T) {
	m := newMutex(t, newLocker(t, model.New(&clock.Local{}), "a"), nil)
	v := recovered(m.Unlock)
	if s, ok := v.(string); !ok || !strings.Contains(s, "Unlock of unlocked") {
		t.Fatalf("Unlock of an unlocked Mutex panicked with %v, want the sync.Mutex-like message", v)
	}
	m.Lock()
	if m.TryLock() {
		t.Fatal("TryLock succeeded while this Mutex holds")
	}
	m.Unlock()
	if v := recovered(m.Unlock); v == nil {
		t.Fatal("second Unlock did not panic")
	}
}

func TestMutex_LockOnClosedLockerPanicsWithErrClosed(t *testing.T) {
	lk := newLocker(t, model.New(&clock.Local{}), "a")
	m := newMutex(t, lk, nil)
	_ = lk.Close(context.Background())
	v := recovered(m.Lock)
	err, ok := v.(error)
	var le *LockError
	if !ok || !errors.As(err, &le) || !errors.Is(err, lockstep.ErrClosed) {
		t.Fatalf("Lock on a closed Locker panicked with %v, want a *LockError wrapping ErrClosed", v)
	}
}

func TestMutex_TimeoutPanicsWithDeadlineExceededAndLeavesTheHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := model.New(&clock.Local{})
		a := newMutex(t, newLocker(t, store, "a"), nil)
		b := newMutex(t, newLocker(t, store, "b"), &Options{Timeout: time.Second})
		a.Lock()
		v := recovered(b.Lock)
		if err, ok := v.(error); !ok || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Lock past its Timeout panicked with %v, want DeadlineExceeded", v)
		}
		if b.TryLock() {
			t.Fatal("TryLock succeeded while a holds")
		}
		select {
		case <-a.Lost():
			t.Fatal("a's holding lost")
		default:
		}
		a.Unlock()
		if !b.TryLock() {
			t.Fatal("TryLock failed after a released")
		}
		b.Unlock()
	})
}

// failingWrites is a store whose writes fail while fail is set.
type failingWrites struct {
	lockstep.Store
	fail atomic.Bool
}

var errWrite = errors.New("write failed on purpose")

func (f *failingWrites) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	if f.fail.Load() {
		return errWrite
	}
	return f.Store.Put(ctx, table, row, cells...)
}

// Loss is visible through Lost while held, and reported by Unlock to
// OnUnlockError; an unlocked Mutex's Lost is closed.
func TestMutex_LossVisibleThroughLostAndOnUnlockError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &failingWrites{Store: model.New(&clock.Local{})}
		var reported error
		m := newMutex(t, newLocker(t, store, "a"), &Options{OnUnlockError: func(err error) { reported = err }})
		select {
		case <-m.Lost():
		default:
			t.Fatal("Lost of an unlocked Mutex is open")
		}
		m.Lock()
		store.fail.Store(true)
		time.Sleep(10 * time.Second)
		select {
		case <-m.Lost():
		default:
			t.Fatal("Lost open although no renewal succeeded for 10s")
		}
		store.fail.Store(false)
		m.Unlock()
		if !errors.Is(reported, lockstep.ErrLost) {
			t.Fatalf("OnUnlockError got %v, want ErrLost", reported)
		}
	})
}
