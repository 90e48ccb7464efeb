package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// lockmanArgs are the rbworker flags that make worker id of seg the
// lock-manager worker number index: its events go below the segment's
// history directory (history.LockmanDir, where check.Run reads them), its
// handovers through one directory shared by the segment's lock-manager
// workers, and its place among them and their plan decide its slots.
func lockmanArgs(seg *segment, histDir, id string, index int) ([]string, error) {
	dir, hand := filepath.Join(histDir, history.LockmanDir), filepath.Join(histDir, "handover")
	for _, d := range []string{dir, hand} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	args := []string{"--lockman-history", filepath.Join(dir, id+".jsonl"), "--handover-dir", hand,
		"--lockman-index", fmt.Sprint(index), "--lockman-peers", fmt.Sprint(seg.lockman)}
	if seg.lockmanPlan != "" {
		args = append(args, "--lockman-plan", seg.lockmanPlan)
	}
	if seg.lockmanPlant != "" {
		args = append(args, "--lockman-plant", seg.lockmanPlant)
	}
	return args, nil
}

// missedBy reports the checkers of want that found no violation.
func missedBy(want []string, found []string) []string {
	has := map[string]bool{}
	for _, f := range found {
		has[f] = true
	}
	var out []string
	for _, w := range want {
		if !has[w] {
			out = append(out, w)
		}
	}
	return out
}
