package queue

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// adoptBesideWaiter runs the fail-over case of docs/algorithms.md, section
// 8.7: a goroutine of the receiver waits in the store's line for "a",
// which the giver holds, when the receiver adopts the giver's token; the
// giver leaves. The lock's queue cell is then lost (a tombstone above
// every later write, as a skewed giver's shed can leave), so that only
// the owner cells keep the waiter out. It returns the adopted lock, the
// channel the waiter's lock arrives on, the store, and the receiver's
// store, off until a test turns its failures on.
func adoptBesideWaiter(t *testing.T, k *TestingKnobs) (lockstep.Lock, <-chan lockstep.Lock, lockstep.Store, *failing, *testLocker) {
	ctx := context.Background()
	s := model.New(&clock.Local{})
	f := &failing{Store: s, failPut: func([]lockstep.Cell) bool { return false }, failDelete: func([]string) bool { return false }}
	tokens, err := clock.NewGlobal(s, "", &clock.Local{})
	if err != nil {
		t.Fatal(err)
	}
	mk := func(s lockstep.Store, k *TestingKnobs) *testLocker {
		l, err := New(s, &Options{TTL: ttl, Renew: time.Second, Poll: 10 * time.Millisecond, Fencing: tokens, TestingKnobs: k})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close(ctx) })
		return l
	}
	giver, receiver := mk(s, nil), mk(f, k)
	l, err := giver.Lock(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := giver.Share(l)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan lockstep.Lock, 1)
	go func() {
		w, err := receiver.Lock(ctx, "a")
		if err != nil {
			t.Errorf("the waiter's Lock = %v", err)
		}
		got <- w
	}()
	time.Sleep(50 * time.Millisecond)
	synctest.Wait()
	l2, err := receiver.Adopt(ctx, tok)
	if err != nil {
		t.Fatalf("Adopt while a goroutine of this Locker waits for the id = %v, want the lock", err)
	}
	if _, err := receiver.Adopt(ctx, tok); !errors.Is(err, lockstep.ErrLocked) {
		t.Errorf("a second Adopt of the id on the Locker = %v, want ErrLocked", err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatalf("giver's Unlock (leave) = %v", err)
	}
	st, err := decodeShareToken(tok)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, DefaultTable, "a", time.Now().Add(time.Hour).UnixMicro(), st.Members[0].Queue); err != nil {
		t.Fatal(err)
	}
	return l2, got, s, f, receiver
}

// An adoption beside the receiver's own waiter succeeds; the waiter does
// not acquire while the adopted lock is held, and does once it is
// released, with a greater fencing token.
func TestQueueLock_AdoptBesideAWaiterOfTheSameLocker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		l2, got, s, _, _ := adoptBesideWaiter(t, nil)
		for range 3 {
			time.Sleep(ttl)
			select {
			case <-got:
				t.Fatal("the waiter acquired while the adopted lock is held")
			default:
			}
		}
		if isLost(l2) {
			t.Fatal("the adopted lock is lost although it renews")
		}
		if err := l2.Unlock(ctx); err != nil {
			t.Fatalf("adopted lock's Unlock = %v", err)
		}
		w := <-got
		if w == nil {
			t.FailNow()
		}
		if tw, t2 := w.(lockstep.Fenced).Token(), l2.(lockstep.Fenced).Token(); tw <= t2 {
			t.Fatalf("the waiter's token %d is not above the adopted one %d", tw, t2)
		}
		if err := w.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if cs := cells(t, s, "a"); len(cs) != 0 {
			t.Fatalf("cells left: %v", cs)
		}
	})
}

// A retried Unlock of a lock adopted beside a waiter of the same Locker
// deletes the adopted cell's column only, never the owner cell of that
// waiter, which acquired once the first Unlock's cells expired. It reports
// whether the waiter's owner cell is still there after the retry.
func retriedUnlockOfAdoptedBesideWaiter(t *testing.T, k *TestingKnobs) bool {
	ctx := context.Background()
	l2, got, s, f, receiver := adoptBesideWaiter(t, k)
	f.failDelete = func([]string) bool { return true }
	f.on.Store(true)
	if err := l2.Unlock(ctx); err == nil {
		t.Fatal("the adopted lock's first Unlock succeeded; the test needs it to fail")
	}
	f.on.Store(false)
	w := <-got // once the adopted lock's cells expired
	if w == nil {
		t.FailNow()
	}
	defer w.Unlock(ctx)
	if err := l2.Unlock(ctx); err != nil {
		t.Fatalf("the adopted lock's retried Unlock = %v", err)
	}
	cs, err := s.Read(ctx, DefaultTable, "a", lockstep.Slice{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Column == receiver.ownerCol && string(c.Value) == w.Owner() {
			return true
		}
	}
	t.Logf("cells after the retry: %v", cs)
	return false
}

func TestQueueLock_RetriedUnlockOfAnAdoptedLockLeavesTheWaitersCell(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		if !retriedUnlockOfAdoptedBesideWaiter(t, nil) {
			t.Fatal("the waiter holds the lock, but its owner cell is gone after the adopted lock's retried Unlock")
		}
	})
}
