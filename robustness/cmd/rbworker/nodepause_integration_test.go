//go:build integration

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/robustness/check"
	"github.com/lockstep-go/lockstep/robustness/register"
)

// nodePID reads the pid of node 1 of the cluster scripts/cassandra runs in
// $LOCKSTEP_CASSANDRA_DIR.
func nodePID(t *testing.T) int {
	t.Helper()
	dir := os.Getenv("LOCKSTEP_CASSANDRA_DIR")
	if dir == "" {
		t.Fatal("LOCKSTEP_CASSANDRA_DIR is empty: set it to the state dir of the cluster in CASSANDRA_HOSTS, so the test can pause its node")
	}
	b, err := os.ReadFile(filepath.Join(dir, "node1", "cassandra.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// TestFleet_NodePausesLongerThanTheTTL pauses the (single) Cassandra node
// three times for 6s (TTL 4s) under a fleet in modes new and combined:
// leases are lost and requests time out, and the checkers must still find
// no violation — the soundness side of the controls.
func TestFleet_NodePausesLongerThanTheTTL(t *testing.T) {
	pid := nodePID(t)
	bin := build(t)
	for _, m := range []lockstep.Mode{lockstep.ModeNew, lockstep.ModeCombined} {
		t.Run(m.String(), func(t *testing.T) {
			setPhase(t, m)
			done := make(chan int)
			startHook = func([]*exec.Cmd, *register.Server) {
				go func() {
					n := 0
					defer func() { done <- n }()
					for range 3 {
						time.Sleep(8 * time.Second)
						if syscall.Kill(pid, syscall.SIGSTOP) == nil {
							n++
						}
						time.Sleep(6 * time.Second)
						syscall.Kill(pid, syscall.SIGCONT)
					}
				}()
			}
			defer func() { startHook = nil }()
			f := runFleet(t, bin, 2, runDuration(t), []member{{mode: m.String()}, {mode: m.String()}, {mode: m.String()}})
			t.Logf("%d node pauses of 6s", <-done)
			rep := checkFleet(t, f, check.Options{})
			if len(rep.Violations) > 0 {
				t.Fatalf("violations under node pauses:\n%s", rep.Summary())
			}
		})
	}
}
