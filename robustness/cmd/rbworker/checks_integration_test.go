//go:build integration

package main

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/robustness/check"
	"github.com/lockstep-go/lockstep/robustness/register"
)

// checkFleet runs the checkers on a finished fleet and logs the report.
func checkFleet(t *testing.T, f fleet, opts check.Options) check.Report {
	t.Helper()
	rep, err := check.Run(f.dir, f.ops, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s\n%s", f.dir, rep.Summary())
	return rep
}

// TestFleet_EachMode runs three workers on two locks in each mode, with no
// faults: no violation, every worker acquires within 20s of the start, and
// no unfenced update is lost either (nobody pauses).
func TestFleet_EachMode(t *testing.T) {
	bin := build(t)
	for _, m := range []lockstep.Mode{lockstep.ModeLegacy, lockstep.ModeCombined, lockstep.ModeNew} {
		t.Run(m.String(), func(t *testing.T) {
			setPhase(t, m)
			f := runFleet(t, bin, 2, runDuration(t), []member{{mode: m.String()}, {mode: m.String()}, {mode: m.String()}})
			rep := checkFleet(t, f, check.Options{HealNS: 1, LivenessBound: 20 * time.Second, StrictCounter: true})
			if len(rep.Violations) > 0 || rep.Holds < 10 {
				t.Fatalf("mode %v: %d holds, violations:\n%s", m, rep.Holds, rep.Summary())
			}
		})
	}
}

// TestFleet_SafeMixes runs the two safe mixes of modes, each in the phase
// that allows it, on one lock: no violation.
func TestFleet_SafeMixes(t *testing.T) {
	bin := build(t)
	for _, mix := range []struct {
		phase lockstep.Mode
		modes []string
	}{
		{lockstep.ModeCombined, []string{"legacy", "combined", "legacy"}},
		{lockstep.ModeNew, []string{"combined", "new", "new"}},
	} {
		t.Run(fmt.Sprint(mix.modes), func(t *testing.T) {
			setPhase(t, mix.phase)
			var ms []member
			for _, m := range mix.modes {
				ms = append(ms, member{mode: m})
			}
			f := runFleet(t, bin, 1, runDuration(t), ms)
			rep := checkFleet(t, f, check.Options{HealNS: 1, LivenessBound: 20 * time.Second, StrictCounter: true})
			if len(rep.Violations) > 0 || rep.Holds < 10 {
				t.Fatalf("%v: %d holds, violations:\n%s", mix.modes, rep.Holds, rep.Summary())
			}
		})
	}
}

// TestControl_LegacyPlusNew: a legacy and a new worker on one lock, both
// bypassing the migration layer (as old binaries would), must be caught.
func TestControl_LegacyPlusNew(t *testing.T) {
	bin := build(t)
	f := runFleet(t, bin, 1, runDuration(t), []member{
		{mode: "legacy", extra: []string{"--bypass-migration"}},
		{mode: "new", extra: []string{"--bypass-migration"}},
	})
	rep := checkFleet(t, f, check.Options{})
	if !has(rep, "mutex") {
		t.Fatalf("legacy+new not caught by the mutex checker:\n%s", rep.Summary())
	}
}

// TestControl_PlantedHalfTTLLease: the old lease (TTL/2, any TTL) with a
// TTL of 1s lets cells expire while their holder's Lost is open; three
// workers contending on one lock must be caught.
func TestControl_PlantedHalfTTLLease(t *testing.T) {
	bin := build(t)
	setPhase(t, lockstep.ModeNew)
	planted := []string{"--plant", "half-ttl-lease", "--ttl", "1s", "--hold", "2s"}
	f := runFleet(t, bin, 1, runDuration(t), []member{{"new", planted}, {"new", planted}, {"new", planted}})
	rep := checkFleet(t, f, check.Options{})
	if len(rep.Violations) == 0 {
		t.Fatalf("planted half-ttl-lease not caught:\n%s", rep.Summary())
	}
}

// TestControl_ClientPauses: a worker paused (SIGSTOP) for longer than the
// TTL right after it read the registers — Jepsen's targeted pause: the
// register's log says who just read — writes stale values when it resumes.
// The unfenced counter loses those updates; the fenced register rejects the
// stale writes and loses none.
func TestControl_ClientPauses(t *testing.T) {
	bin := build(t)
	setPhase(t, lockstep.ModeNew)
	stop := make(chan struct{})
	done := make(chan int)
	startHook = func(cmds []*exec.Cmd, srv *register.Server) {
		go func() {
			n := 0
			defer func() { done <- n }()
			rng := rand.New(rand.NewPCG(7, 7))
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Duration(1000+rng.IntN(2000)) * time.Millisecond):
				}
				if pid := justRead(srv, cmds); pid != 0 && syscall.Kill(pid, syscall.SIGSTOP) == nil {
					n++
					time.Sleep(6 * time.Second) // TTL 4s
					syscall.Kill(pid, syscall.SIGCONT)
				}
			}
		}()
	}
	defer func() { startHook = nil }()
	f := runFleet(t, bin, 1, runDuration(t), []member{{mode: "new"}, {mode: "new"}, {mode: "new"}})
	close(stop)
	t.Logf("%d targeted pauses of 6s", <-done)
	rep := checkFleet(t, f, check.Options{})
	if len(rep.Violations) > 0 || rep.CounterLostUpdates == 0 || rep.FencedRejected == 0 {
		t.Fatalf("want lost updates on the counter, stale fenced writes rejected, and no violation:\n%s", rep.Summary())
	}
}

// justRead returns the pid of the worker whose counter read is the
// register's latest request, if it has not written since: it is working in
// its critical section.
func justRead(srv *register.Server, cmds []*exec.Cmd) int {
	ops := srv.Ops()
	if len(ops) == 0 || ops[len(ops)-1].Kind != register.ReadCounter {
		return 0
	}
	var i int
	if _, err := fmt.Sscanf(ops[len(ops)-1].Process, "w%d", &i); err != nil || i < 0 || i >= len(cmds) {
		return 0
	}
	return cmds[i].Process.Pid
}

func has(r check.Report, checker string) bool {
	for _, c := range r.Checkers() {
		if c == checker {
			return true
		}
	}
	return false
}
