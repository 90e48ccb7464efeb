package main

import (
	"path/filepath"
	"slices"
	"testing"
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
// shared handover directory and the planted defects; the fleets' none.
func TestLockmanArgs(t *testing.T) {
	dir := t.TempDir()
	ctl := segment{lockman: 2, lockmanPlant: "fake-deadlock,early-leave"}
	args, err := lockmanArgs(&ctl, dir, "ctl-w3")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--lockman-history", filepath.Join(dir, "lockman", "ctl-w3.jsonl"), "--handover-dir", filepath.Join(dir, "handover"),
		"--lockman-plant", "fake-deadlock,early-leave"}
	if !slices.Equal(args, want) {
		t.Fatalf("args %v, want %v", args, want)
	}
	f, _ := fleetByName("combined")
	if args, _ := lockmanArgs(&f, dir, "combined-w3"); len(args) != 4 || f.lockman != 2 {
		t.Fatalf("fleet combined: lockman %d, args %v", f.lockman, args)
	}
}
