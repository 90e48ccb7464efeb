package main

import (
	"os"
	"path/filepath"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// lockmanArgs are the rbworker flags that make worker id of seg a
// lock-manager worker: its events go below the segment's history
// directory (history.LockmanDir, where check.Run reads them) and its
// handovers through one directory shared by the segment's lock-manager
// workers.
func lockmanArgs(seg *segment, histDir, id string) ([]string, error) {
	dir, hand := filepath.Join(histDir, history.LockmanDir), filepath.Join(histDir, "handover")
	for _, d := range []string{dir, hand} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	args := []string{"--lockman-history", filepath.Join(dir, id+".jsonl"), "--handover-dir", hand}
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
