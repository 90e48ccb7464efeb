package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
)

func TestRunRollout_EveryPhaseCountsExactlyWithoutDoubleGrants(t *testing.T) {
	cfg := rolloutConfig{processes: 3, phaseHold: 2 * time.Second, hold: time.Millisecond,
		minLatency: 500 * time.Microsecond, maxLatency: 2 * time.Millisecond, seed: 3}
	res, err := runRollout(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.phases) != 1+len(rolloutPath) {
		t.Fatalf("%d phases, want %d", len(res.phases), 1+len(rolloutPath))
	}
	var byMode [lockstep.ModeNew + 1]int
	for _, p := range res.phases {
		if p.doubles != 0 {
			t.Errorf("phase %s: %d double grants", p.name, p.doubles)
		}
		for m, n := range p.byMode {
			byMode[m] += n
		}
	}
	if res.counter != res.expected || res.expected == 0 {
		t.Fatalf("counter %d, expected %d", res.counter, res.expected)
	}
	if byMode[lockstep.ModeLegacy] == 0 || byMode[lockstep.ModeCombined] == 0 || byMode[lockstep.ModeNew] == 0 {
		t.Fatalf("locks by mode %v: every mode must be used", byMode)
	}
	if p := res.phases[2]; p.byMode[lockstep.ModeLegacy] != 0 {
		t.Fatalf("phase new took %d legacy locks", p.byMode[lockstep.ModeLegacy])
	}
	var buf bytes.Buffer
	printRollout(&buf, cfg, res)
	for _, want := range []string{"combined (up)", "combined (down)", "legacy (back)", "double grants", ": exact;"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestRun1_RefusesBadRolloutFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-scenario", "chaos"},
		{"-scenario", "rollout", "-processes", "1,3"},
		{"-scenario", "rollout", "-processes", "0"},
		{"-scenario", "rollout", "-phase-hold", "0s"},
	} {
		if err := run1(args); err == nil {
			t.Errorf("run1(%q) succeeded", args)
		}
	}
}
