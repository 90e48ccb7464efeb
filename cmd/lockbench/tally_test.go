package main

import (
	"context"
	"testing"

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

	if got := countOf(&acquire); got != (callCount{reads: 2, puts: 2}) {
		t.Errorf("acquire counted %+v, want 2 reads and 2 puts", got)
	}
	if got := countOf(&release); got != (callCount{deletes: 1}) {
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
