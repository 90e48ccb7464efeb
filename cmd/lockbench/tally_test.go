package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model"
)

func TestCountingStore_CountsAKnownSequenceIntoTheTallyOfItsPath(t *testing.T) {
	clk := model.NewManualClock(0)
	s := &countingStore{inner: model.New(clk)}
	var acquire, release tally
	ctx := withTally(context.Background(), &acquire)
	// A sequence of the shape of one acquisition: write, read, write, read.
	_ = s.Put(ctx, "t", "row", lockstep.Cell{Column: "a", Timestamp: 1})
	_, _ = s.Read(ctx, "t", "row", lockstep.Slice{})
	_ = s.Put(context.WithoutCancel(ctx), "t", "row", lockstep.Cell{Column: "b", Timestamp: 2}) // derived contexts count too
	_, _ = s.Read(ctx, "t", "row", lockstep.Slice{})
	// The release: one delete on its own tally.
	_ = s.Delete(withTally(context.Background(), &release), "t", "row", 3, "a", "b")
	// Renewal traffic carries no tally.
	_ = s.Put(context.Background(), "t", "row", lockstep.Cell{Column: "c", Timestamp: 4})

	if got := countOf(&acquire); got != (callCount{reads: 2, puts: 2, sequential: 4}) {
		t.Errorf("acquire counted %+v, want 2 reads and 2 puts, one after the other", got)
	}
	if got := countOf(&release); got != (callCount{deletes: 1, sequential: 1}) {
		t.Errorf("release counted %+v, want 1 delete", got)
	}
	if got := s.background.Load(); got != 1 {
		t.Errorf("background counted %d, want 1", got)
	}
	// The wrapper only counts: the writes reached the store.
	cells, err := s.inner.Read(context.Background(), "t", "row", lockstep.Slice{})
	if err != nil || len(cells) != 1 || cells[0].Column != "c" {
		t.Fatalf("store holds %v (%v), want only column c", cells, err)
	}
}

// slowStore makes every request take its delay on a manual clock.
type slowStore struct {
	lockstep.Store
	clk   *model.ManualClock
	delay time.Duration
}

func (s slowStore) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	s.clk.Advance(s.delay)
	return s.Store.Read(ctx, table, row, sl)
}

func TestCountingStore_KeepsTheSlowestRequestSinceItsReset(t *testing.T) {
	clk := model.NewManualClock(1000)
	inner := slowStore{Store: model.New(clk), clk: clk}
	s := &countingStore{inner: &inner, clock: clk}
	read := func(d time.Duration) {
		inner.delay = d
		_, _ = s.Read(context.Background(), "t", "row", lockstep.Slice{})
	}
	read(time.Second) // a warm-up's
	s.resetSlowest()
	read(2 * time.Millisecond)
	at := clk.Now()
	read(7 * time.Millisecond)
	read(3 * time.Millisecond)
	if d, began := s.slowestRequest(); d != 7*time.Millisecond || began != at {
		t.Fatalf("slowest %v at %d, want 7ms at %d", d, began, at)
	}
}

func TestSlowestText_MarksARequestThatOverlappedTheLongestWait(t *testing.T) {
	ms := time.Millisecond
	r := run{procs: []procResult{
		{Waits: []time.Duration{10 * ms, 200 * ms}, At: []time.Duration{10 * ms, 400 * ms}, Slowest: 5 * ms, SlowestAt: 1 * ms},
		{Waits: []time.Duration{20 * ms}, At: []time.Duration{30 * ms}, Slowest: 150 * ms, SlowestAt: 300 * ms},
	}}
	if got := slowestText(r); got != "150.0 ms*" {
		t.Errorf("overlapping: %q", got)
	}
	r.procs[1].SlowestAt = 500 * ms
	if got := slowestText(r); got != "150.0 ms" {
		t.Errorf("after the wait: %q", got)
	}
	r.procs[0].Slowest, r.procs[1].Slowest = 0, 0
	if got := slowestText(r); got != "–" {
		t.Errorf("untimed: %q", got)
	}
}

func TestTally_SequentialCountsTheLongestChainOfRequests(t *testing.T) {
	var tl tally
	// a and b side by side; c after both; d beside c, sent before a returned.
	endA, endB := tl.begin(), tl.begin()
	endD := tl.begin()
	endA()
	endB()
	endC := tl.begin()
	endC()
	endD()
	require.Equal(t, int64(2), tl.sequential(), "a‖b‖d then c: two round trips")
	// e after c: three.
	tl.begin()()
	require.Equal(t, int64(3), tl.sequential())
}
