package main

import (
	"context"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep/queuelock"
)

func TestRunSimTombstones_FloorReadStaysFlatWhileTheNaiveReadGrows(t *testing.T) {
	// 3,000 acquisitions, one per 100 ms of virtual time: 300 s, long enough
	// for the floor to move many times.
	cfg := tombstoneConfig{n: 3000, period: 100 * time.Millisecond, window: 30}
	samples, err := runSimTombstones(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != len(cfg.checkpoints()) {
		t.Fatalf("%d samples, want one per checkpoint %v", len(samples), cfg.checkpoints())
	}
	quarter, last := samples[2], samples[len(samples)-1]
	if quarter.done != 750 || last.done != 3000 {
		t.Fatalf("samples at %d and %d, want 750 and 3000", quarter.done, last.done)
	}
	// Every acquisition leaves a queue tombstone (the owner cell is one
	// column per Locker), none purged: the whole row grows linearly.
	if last.naive < 3*quarter.naive || last.naive < int64(cfg.n) {
		t.Errorf("naive read stepped over %d tombstones after 750 and %d after 3000: not growing with history", quarter.naive, last.naive)
	}
	// The algorithm's reads start at the floor: at the end they cost at most
	// 1.2 times what they did in the first window (BENCHMARKS.md's target), and no
	// more than the acquisitions of the floor's lag behind the clock
	// (2×MaxClockSkew), one more at its edge, and the owner tombstone.
	bound := float64(2*queuelock.DefaultMaxClockSkew/cfg.period) + 2
	if first := samples[0]; last.floorMean > 1.2*first.floorMean || last.floorMean > bound {
		t.Errorf("floor reads stepped over %.2f per read in the first %d acquisitions and %.2f after 3000 (naive %d): not flat",
			first.floorMean, cfg.window, last.floorMean, last.naive)
	}
}

func TestTombstoneConfig_CheckpointsStartWithTheFirstWindowAndEndAtN(t *testing.T) {
	got := tombstoneConfig{n: 100000, window: 1000}.checkpoints()
	want := []int{1000, 10000, 25000, 50000, 100000}
	if len(got) != len(want) {
		t.Fatalf("checkpoints %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("checkpoints %v, want %v", got, want)
		}
	}
	if got := (tombstoneConfig{n: 10, window: 1}).checkpoints(); got[0] != 1 || got[len(got)-1] != 10 {
		t.Fatalf("small run checkpoints %v", got)
	}
}
