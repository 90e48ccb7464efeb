package turn

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

func TestTurns_FIFO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var tr Turns
		ctx := context.Background()
		if err := tr.Acquire(ctx, "k"); err != nil {
			t.Fatal(err)
		}
		order := make(chan int, 5)
		for i := range 5 {
			go func() {
				if err := tr.Acquire(ctx, "k"); err != nil {
					t.Error(err)
					return
				}
				order <- i
				tr.Release("k")
			}()
			synctest.Wait() // goroutine i is parked in line before i+1 starts
		}
		tr.Release("k")
		for want := range 5 {
			if got := <-order; got != want {
				t.Fatalf("turn %d went to waiter %d", want, got)
			}
		}
		synctest.Wait()
		if tr.Len() != 0 {
			t.Fatalf("Len = %d after all released", tr.Len())
		}
	})
}

func TestTurns_TryAcquireFailsWhileHeld(t *testing.T) {
	var tr Turns
	if !tr.TryAcquire("a") {
		t.Fatal("first TryAcquire failed")
	}
	if tr.TryAcquire("a") {
		t.Fatal("second TryAcquire succeeded")
	}
	if !tr.TryAcquire("b") {
		t.Fatal("other key blocked")
	}
	tr.Release("a")
	if !tr.TryAcquire("a") {
		t.Fatal("TryAcquire after Release failed")
	}
}

func TestTurns_CancelledWaiterLeavesLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var tr Turns
		_ = tr.Acquire(context.Background(), "k")
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		err := tr.Acquire(ctx, "k")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Acquire = %v, want deadline exceeded", err)
		}
		tr.Release("k")
		if tr.Len() != 0 {
			t.Fatal("cancelled waiter still holds a place")
		}
	})
}

// A process that locks ever new ids keeps no memory of those it released:
// the last release forgets the key, and the map once it is empty.
func TestTurns_ReleasedKeysLeaveNothingBehind(t *testing.T) {
	var tr Turns
	ctx := context.Background()
	for i := range 1000 {
		k := string(rune('a'+i%26)) + string(rune(i))
		if err := tr.Acquire(ctx, k); err != nil {
			t.Fatal(err)
		}
		if !tr.Busy(k) {
			t.Fatalf("turn on %q held but not busy", k)
		}
		tr.Release(k)
		if tr.Busy(k) {
			t.Fatalf("turn on %q released but still busy", k)
		}
	}
	if tr.Len() != 0 || tr.keys != nil {
		t.Fatalf("after every release: %d keys, map %v; want none and no map", tr.Len(), tr.keys)
	}
}
