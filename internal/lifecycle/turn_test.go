package lifecycle

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
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

// Compatible requests hold turns at once, each in its own slot; an
// incompatible one waits for all of them, and a compatible request that
// arrives after it waits behind it (no bypass); when the waiter gives up,
// the one behind it is admitted.
func TestTurns_SharedSlotsAndNoBypass(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var tr Turns
		ctx := context.Background()
		s0, err := tr.Take(ctx, "k", lockstep.Shared)
		require.NoError(t, err)
		s1, err := tr.Take(ctx, "k", lockstep.IntentShared)
		require.NoError(t, err)
		require.Equal(t, []int{0, 1}, []int{s0, s1})

		xctx, cancelX := context.WithCancel(ctx)
		xdone := make(chan error, 1)
		go func() { _, err := tr.Take(xctx, "k", lockstep.Exclusive); xdone <- err }()
		synctest.Wait()
		sdone := make(chan int, 1)
		go func() {
			slot, err := tr.Take(ctx, "k", lockstep.Shared)
			assert.NoError(t, err)
			sdone <- slot
		}()
		synctest.Wait()
		select {
		case <-sdone:
			t.Fatal("a reader passed an earlier waiting writer")
		default:
		}
		_, ok := tr.TryTake("k", lockstep.IntentShared)
		require.False(t, ok, "TryTake must fail while anyone waits")

		tr.Leave("k", s0)
		synctest.Wait()
		select {
		case <-xdone:
			t.Fatal("the writer was admitted beside a holder")
		default:
		}
		cancelX()
		synctest.Wait()
		require.ErrorIs(t, <-xdone, context.Canceled)
		require.Equal(t, 0, <-sdone, "the reader behind the cancelled writer takes the free slot 0")
		tr.Leave("k", 0)
		tr.Leave("k", s1)
		require.Equal(t, 0, tr.Len())
	})
}

// A writer granted after readers leave has slot 0, and readers behind it are
// admitted together once it leaves.
func TestTurns_WriterThenReadersTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var tr Turns
		ctx := context.Background()
		require.NoError(t, tr.Acquire(ctx, "k"))
		got := make(chan int, 3)
		for range 3 {
			go func() {
				slot, err := tr.Take(ctx, "k", lockstep.Shared)
				assert.NoError(t, err)
				got <- slot
			}()
		}
		synctest.Wait()
		require.Empty(t, got)
		tr.Release("k")
		synctest.Wait()
		slots := []int{<-got, <-got, <-got}
		require.ElementsMatch(t, []int{0, 1, 2}, slots)
		for _, s := range slots {
			tr.Leave("k", s)
		}
		require.Equal(t, 0, tr.Len())
	})
}

// Reserve takes a slot no holder has, whoever holds others, and blocks every
// grant until Leave; a slot held cannot be reserved.
func TestTurns_ReserveHoldsAFreeSlotAndBlocksGrants(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var tr Turns
		ctx := context.Background()
		s0, err := tr.Take(ctx, "k", lockstep.Shared)
		require.NoError(t, err)
		s1, err := tr.Take(ctx, "k", lockstep.Shared)
		require.NoError(t, err)
		require.Equal(t, []int{0, 1}, []int{s0, s1})
		tr.Leave("k", s0)
		require.False(t, tr.Reserve("k", s1), "slot 1 is held")
		require.True(t, tr.Reserve("k", s0), "slot 0 is free though slot 1 is held")
		_, ok := tr.TryTake("k", lockstep.IntentShared)
		require.False(t, ok, "no grant while reserved")
		got := make(chan int, 1)
		go func() {
			s, err := tr.Take(ctx, "k", lockstep.Shared)
			assert.NoError(t, err)
			got <- s
		}()
		synctest.Wait()
		require.Empty(t, got)
		tr.Leave("k", s0)
		require.Equal(t, 0, <-got, "granted the freed slot once the reservation left")
		tr.Leave("k", 0)
		tr.Leave("k", s1)
		require.Zero(t, tr.Len(), "the key is forgotten")
		require.True(t, tr.Reserve("k", 3), "a key nobody holds")
		tr.Leave("k", 3)
		require.Zero(t, tr.Len())
	})
}

// Holding counts only the turns marked held, in an access incompatible
// with the one asked about, and forgets a turn once it is left.
func TestTurns_HoldingCountsHeldTurnsOnly(t *testing.T) {
	var tr Turns
	require.True(t, tr.TryAcquire("k"))
	require.False(t, tr.Holding("k", lockstep.Exclusive), "a contender's turn is not a hold")
	tr.Hold("k", 0)
	require.True(t, tr.Holding("k", lockstep.Shared))
	tr.Release("k")
	require.False(t, tr.Holding("k", lockstep.Exclusive))
	s0, ok := tr.TryTake("k", lockstep.Shared)
	require.True(t, ok)
	tr.Hold("k", s0)
	require.False(t, tr.Holding("k", lockstep.Shared), "a compatible hold")
	require.True(t, tr.Holding("k", lockstep.Exclusive))
	tr.Leave("k", s0)
	require.Equal(t, 0, tr.Len())
}

// Acquire waits for an exclusive turn on key: Take in lockstep.Exclusive,
// whose slot is always 0.
func (t *Turns) Acquire(ctx context.Context, key string) error {
	_, err := t.Take(ctx, key, lockstep.Exclusive)
	return err
}

// TryAcquire takes an exclusive turn on key only if nobody holds a turn on
// it or waits for one.
func (t *Turns) TryAcquire(key string) bool {
	_, ok := t.TryTake(key, lockstep.Exclusive)
	return ok
}

// Release gives back the exclusive turn on key (slot 0).
func (t *Turns) Release(key string) { t.Leave(key, 0) }
