package clock_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// issueConcurrently calls next from 8 goroutines, 1000 times each, while
// disturb (if not nil) runs alongside, and checks every goroutine saw strictly
// increasing values and that no value was issued twice.
func issueConcurrently(t *testing.T, next func() int64, disturb func(stop <-chan struct{})) {
	t.Helper()
	const goroutines, calls = 8, 1000
	got := make([][]int64, goroutines)
	stop := make(chan struct{})
	var dwg sync.WaitGroup
	if disturb != nil {
		dwg.Go(func() { disturb(stop) })
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			vs := make([]int64, calls)
			for i := range vs {
				vs[i] = next()
			}
			got[g] = vs
		})
	}
	wg.Wait()
	close(stop)
	dwg.Wait()

	var all []int64
	for g, vs := range got {
		for i := 1; i < len(vs); i++ {
			if vs[i] <= vs[i-1] {
				t.Fatalf("goroutine %d: value %d = %d not above the previous %d", g, i, vs[i], vs[i-1])
			}
		}
		all = append(all, vs...)
	}
	slices.Sort(all)
	if d := len(all) - len(slices.Compact(all)); d != 0 {
		t.Fatalf("%d duplicate values among %d", d, goroutines*calls)
	}
}

// jitter moves clk back and forth by up to a second until stop closes.
func jitter(clk *model.ManualClock) func(stop <-chan struct{}) {
	return func(stop <-chan struct{}) {
		start := clk.Now()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			clk.Set(start + int64(i%7-5)*200_000) // -1 s .. +0.2 s around start
		}
	}
}

func TestTimestamps_FollowTheClockWhenItAdvances(t *testing.T) {
	clk := model.NewManualClock(0)
	ts := clock.NewTimestamps(clk)
	if got := ts.Next(); got != clk.Now() {
		t.Fatalf("first Next() = %d, want the clock's %d", got, clk.Now())
	}
	clk.Advance(time.Second)
	if got := ts.Next(); got != clk.Now() {
		t.Fatalf("Next() after 1s = %d, want %d", got, clk.Now())
	}
}

func TestTimestamps_StrictlyIncreaseWhenClockStandsStill(t *testing.T) {
	clk := model.NewManualClock(0)
	ts := clock.NewTimestamps(clk)
	issueConcurrently(t, ts.Next, nil)
	if got, want := ts.Next(), clk.Now()+8*1000; got != want {
		t.Fatalf("after 8000 timestamps on a still clock Next() = %d, want %d", got, want)
	}
}

func TestTimestamps_StrictlyIncreaseWhenClockGoesBackwards(t *testing.T) {
	clk := model.NewManualClock(0)
	ts := clock.NewTimestamps(clk)
	issueConcurrently(t, ts.Next, jitter(clk))

	last := ts.Next()
	clk.Advance(-10 * time.Second)
	if got := ts.Next(); got != last+1 {
		t.Fatalf("Next() after a 10s step back = %d, want last+1 = %d", got, last+1)
	}
}

func TestTimestamps_ExceedTheTombstoneOfADeleteIssuedJustBefore(t *testing.T) {
	// The reason Timestamps exists (timestamps.go): a rewrite after a delete on a
	// clock that did not tick must not lose to its own tombstone.
	clk := model.NewManualClock(0)
	store := model.New(clk)
	ts := clock.NewTimestamps(clk)
	ctx := t.Context()
	if err := store.Put(ctx, "t", "r", lockstep.Cell{Column: "c", Value: []byte("1"), Timestamp: ts.Next()}); err != nil {
		t.Fatal(err)
	}
	if err := store.Delete(ctx, "t", "r", ts.Next(), "c"); err != nil {
		t.Fatal(err)
	}
	if err := store.Put(ctx, "t", "r", lockstep.Cell{Column: "c", Value: []byte("2"), Timestamp: ts.Next()}); err != nil {
		t.Fatal(err)
	}
	cells, err := store.Read(ctx, "t", "r", lockstep.Slice{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 1 || string(cells[0].Value) != "2" {
		t.Fatalf("read %v, want the rewritten cell", cells)
	}
}
