package main

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep/robustness/nemesis"
)

// A control with catchBy is caught only when every named checker found a
// violation.
func TestMissedBy(t *testing.T) {
	want := []string{"access", "deadlock", "transfer"}
	if got := missedBy(want, []string{"access", "deadlock", "mutex", "transfer"}); len(got) != 0 {
		t.Fatalf("all found, missed %v", got)
	}
	if got := missedBy(want, []string{"access"}); !slices.Equal(got, []string{"deadlock", "transfer"}) {
		t.Fatalf("missed %v, want deadlock and transfer", got)
	}
	if got := missedBy(nil, nil); len(got) != 0 {
		t.Fatalf("no catchBy, missed %v", got)
	}
}

// The control's lock-manager workers get their events under lockman/, a
// shared handover directory, their place among the segment's, its plan
// and the planted defects; the fleets' no plant and the default plan.
func TestLockmanArgs(t *testing.T) {
	dir := t.TempDir()
	ctl := segment{lockman: 2, lockmanPlant: "fake-deadlock,early-leave", lockmanPlan: "PPT"}
	args, err := lockmanArgs(&ctl, dir, "ctl-w3", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--lockman-history", filepath.Join(dir, "lockman", "ctl-w3.jsonl"), "--handover-dir", filepath.Join(dir, "handover"),
		"--lockman-index", "1", "--lockman-peers", "2", "--lockman-plan", "PPT", "--lockman-plant", "fake-deadlock,early-leave"}
	if !slices.Equal(args, want) {
		t.Fatalf("args %v, want %v", args, want)
	}
	f, _ := fleetByName("combined")
	if args, _ := lockmanArgs(&f, dir, "combined-w5", 3); len(args) != 8 || f.lockman != 4 || f.extra != 2 {
		t.Fatalf("fleet combined: lockman %d, extra %d, args %v", f.lockman, f.extra, args)
	}
}

// The lockd control's added workers are lock-manager workers with
// detection planted away; its lockd clients are the last plain workers.
func TestLockdControlHasNoDetectionWorkers(t *testing.T) {
	c := ctlLockdIgnoresLost
	r := &runner{o: options{workers: 4}}
	if r.workerCount(&c) != 7 || c.lockman != 2 || c.lockmanPlant != "no-detection" || !slices.Equal(c.catchBy, []string{"mutex", "lockd-loss"}) {
		t.Fatalf("control %+v", c)
	}
}

// The cycle checker's faults are every event but the lockd nemeses, which
// the lock-manager workers do not feel.
func TestWrapFaultsLeavesLockdEventsOut(t *testing.T) {
	evs := []nemesis.Event{{Nemesis: &nemesis.PauseLockd{N: 1}}, {Nemesis: nemesis.Bump(nil, 2, time.Second)}}
	out := (&spanRecorder{}).wrapFaults(evs)
	if _, ok := out[0].Nemesis.(*timed); ok {
		t.Fatal("a lockd nemesis counted as a fault of the lock-manager workers")
	}
	if _, ok := out[1].Nemesis.(*timed); !ok {
		t.Fatal("a skew bump not counted as a fault")
	}
}

// In a fleet with lockd clients and lock-manager workers, the clients are
// the last plain workers and the lock-manager workers come after them.
func TestLockdClientsComeBeforeLockmanWorkers(t *testing.T) {
	f, _ := fleetByName("combined+new")
	r := &runner{o: options{workers: 4}, outDir: t.TempDir()}
	s := r.newLockdSet(&f, 4)
	if want := []string{"combined_new-w2", "combined_new-w3", "combined_new-w4"}; !slices.Equal(s.clients, want) {
		t.Fatalf("lockd clients %v, want %v", s.clients, want)
	}
	if n := r.workerCount(&f); n != 9 || n-f.lockman != 5 {
		t.Fatalf("%d workers, %d lock-manager", n, f.lockman)
	}
}
