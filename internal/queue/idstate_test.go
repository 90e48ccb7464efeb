package queue

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model"
)

// forgetting is what a Locker and its table keep of n distinct ids, each
// locked and released twice (the second claim publishes the floor cell),
// once the clock has moved past every TTL and the janitor has run.
type forgetting struct {
	n              int
	floors, hints  int   // entries left in the Locker's per-id maps
	liveCells      int   // live cells of those ids in the table
	retained       int64 // heap bytes above the empty Locker's, after GC
	lockerBytes    int64 // heap the Locker itself held at the end
	emptyBytes     int64 // heap an empty Locker holds
	peakFloorBytes int64 // heap the Locker held with every id remembered
}

// lockManyIDs runs the scenario on the model store with a ManualClock; no
// wall-clock sleeps. It must run without t.Parallel: it measures the heap.
func lockManyIDs(t *testing.T, n int, k *TestingKnobs) forgetting {
	t.Helper()
	ctx := context.Background()
	clk := model.NewManualClock(0)
	s := model.New(clk, model.WithGCGrace(0))
	opts := &Options{TTL: ttl, Renew: time.Second, Poll: 10 * time.Millisecond, Clock: clk, TestingKnobs: k}
	l, err := New(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	f := forgetting{n: n, emptyBytes: emptyLockerBytes(t, s, opts)}

	lockTwice := func(ids []string) {
		for range 2 {
			for _, id := range ids {
				h, err := l.Lock(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if err := h.Unlock(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// Past every TTL: entries expire a TTL after their last use, the janitor
	// sweeps every TTL, the floor cell lives 2×TTL + Poll (whole seconds).
	pastTTL := func() {
		clk.Advance(l.floorCellTTL() + ttl + time.Second)
		<-l.janitorDone()
	}
	names := func(prefix string, n int) []string {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("%s/%d", prefix, i)
		}
		return ids
	}
	// A warm-up round first, so that what the runtime and the test clock
	// keep once they have served many goroutines and sleeps is in the base.
	lockTwice(names("warmup", 1000))
	pastTTL()
	s.Compact()
	base := heapInUse()

	ids := names("invoice", n)
	lockTwice(ids)
	f.peakFloorBytes = heapInUse() - base
	pastTTL()
	f.floors, f.hints = l.idStateLen()

	nowSec := clk.Now() / 1_000_000
	for _, id := range ids {
		for _, c := range s.Scan(DefaultTable, id, lockstep.Slice{}) {
			if c.IsLive(nowSec) {
				f.liveCells++
			}
		}
	}
	ids = nil
	s.Compact() // purge the tombstones (gc grace 0), so the store is empty again
	f.retained = heapInUse() - base

	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	before := heapInUse()
	runtime.KeepAlive(l)
	l = nil
	f.lockerBytes = before - heapInUse()
	runtime.KeepAlive(s)
	return f
}

// emptyLockerBytes returns how much heap a Locker on s that never locked
// anything holds.
func emptyLockerBytes(t *testing.T, s lockstep.Store, opts *Options) int64 {
	before := heapInUse()
	l, err := New(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	with := heapInUse()
	runtime.KeepAlive(l)
	return with - before
}

// heapInUse returns the live heap after a full collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// manyIDs is how many distinct ids the forgetting tests lock: 100,000, or
// 10,000 under -short or the race detector, which slows each acquisition
// tenfold.
func manyIDs() int {
	if testing.Short() || raceEnabled {
		return 10_000
	}
	return 100_000
}

// A service that locks ever new ids ("invoice/<n>") keeps nothing of them
// once released and a TTL has passed: no floor or hint in the Locker, no
// live cell in the table, and the heap back to an empty Locker's.
func TestLocker_ReleasedIDsLeaveNoStateAfterTheTTL(t *testing.T) {
	f := lockManyIDs(t, manyIDs(), nil)
	t.Logf("%d ids: peak %d B/id while remembered; after the TTL %d floors, %d hints, %d live cells, %d B retained above an empty Locker (Locker itself %d B, an empty one %d B)",
		f.n, f.peakFloorBytes/int64(f.n), f.floors, f.hints, f.liveCells, f.retained, f.lockerBytes, f.emptyBytes)
	if f.floors != 0 || f.hints != 0 {
		t.Errorf("the Locker still remembers %d floors and %d hints, want none", f.floors, f.hints)
	}
	if f.liveCells != 0 {
		t.Errorf("the table holds %d live cells of released ids, want none", f.liveCells)
	}
	// The process as a whole (test clock and runtime included) within a
	// generous constant; the Locker itself within a small one.
	const limit, lockerLimit = 64 << 10, 4 << 10
	if f.retained > limit {
		t.Errorf("%d bytes retained above an empty Locker, want at most %d", f.retained, limit)
	}
	if d := f.lockerBytes - f.emptyBytes; d > lockerLimit {
		t.Errorf("the Locker holds %d bytes more than an empty one, want at most %d", d, lockerLimit)
	}
}

// A floor entry is kept past its expiry while its id is held (the claim after
// the next read must publish the floor that read started at), and dropped
// once the id is released and a TTL has passed.
func TestLocker_HeldIDKeepsItsFloorUntilReleased(t *testing.T) {
	ctx := context.Background()
	clk := model.NewManualClock(0)
	s := model.New(clk)
	l := newLocker(t, s, clk)
	h, err := l.Lock(ctx, "id")
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * ttl)
	l.sweep()
	if f, _ := l.idStateLen(); f != 1 {
		t.Fatalf("held id: %d floors after the TTL, want 1", f)
	}
	if err := h.Unlock(ctx); err != nil && !errors.Is(err, lockstep.ErrLost) {
		t.Fatal(err)
	}
	l.sweep() // expired already, and no longer held
	if f, _ := l.idStateLen(); f != 0 {
		t.Fatalf("released id: %d floors after the TTL, want none", f)
	}
}

// A contention hint lasts a TTL; then the sweeps drop it.
func TestLocker_ContentionHintIsDroppedWhenItRunsOut(t *testing.T) {
	clk := model.NewManualClock(0)
	l := newLocker(t, model.New(clk), clk)
	l.contended("id")
	clk.Advance(ttl - time.Microsecond)
	l.sweep()
	if _, hints := l.idStateLen(); hints != 1 || l.fastPathOK("id") {
		t.Fatalf("a TTL not yet passed: %d hints, fast path %v; want the hint kept", hints, l.fastPathOK("id"))
	}
	clk.Advance(time.Microsecond)
	l.sweep()
	if _, hints := l.idStateLen(); hints != 0 {
		t.Fatalf("a TTL passed: %d hints, want none", hints)
	}
}

// The janitor runs only while the Locker remembers an id, and Close stops it
// and waits for it.
func TestLocker_JanitorEndsWhenIdleAndOnClose(t *testing.T) {
	ctx := context.Background()
	clk := model.NewManualClock(0)
	l := newLocker(t, model.New(clk), clk)
	lockOnce := func(id string) {
		h, err := l.Lock(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	start := clk.Elapsed()
	lockOnce("a")
	done := l.janitorDone()
	select {
	case <-done:
		t.Fatal("no janitor runs while the Locker remembers an id")
	default:
	}
	// Advance only once the janitor sleeps, and alone: the lease scheduler,
	// with nothing left to renew, ends (internal/lease), and Unlock no
	// longer waits for any goroutine that would give the janitor time to
	// park first.
	for next, ok := clk.NextDeadline(); clk.Sleepers() != 1 || !ok || next != start+ttl.Microseconds(); next, ok = clk.NextDeadline() {
		runtime.Gosched()
	}
	clk.Advance(2 * ttl)
	<-done // swept everything, so it ended
	if f, h := l.idStateLen(); f+h != 0 {
		t.Fatalf("idle: %d floors, %d hints; want none", f, h)
	}

	lockOnce("b") // starts another run
	done = l.janitorDone()
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	default:
		t.Fatal("Close returned with the janitor still running")
	}
}

// janitorDone returns a channel closed when the janitor's current run has
// ended (already closed if none runs).
func (l *Locker) janitorDone() <-chan struct{} {
	l.janitor.mu.Lock()
	defer l.janitor.mu.Unlock()
	if l.janitor.done == nil || !l.janitor.running {
		c := make(chan struct{})
		close(c)
		return c
	}
	return l.janitor.done
}
