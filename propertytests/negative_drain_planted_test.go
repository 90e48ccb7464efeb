//go:build lockstep_bugs

package propertytests

import (
	"flag"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The control of the drain's defect: with DrainSkipsRecheck planted, a
// Controller commits new right after its intent, trusting the census read
// that ended its drain. The drain property (phasedrain_test.go) must catch it by
// the phase property — a legacy lock taken after the commit of new was
// acknowledged: a drifter that published legacy after the drain's last read
// and read the phase before the intent is admitted, then again from its
// phase cache. The planted run catches it in about one run in fifty, so the
// control runs up to controlChecks checks; rapid stops at the first failure.
// (It is not minimized like the fleet controls: minimize replays fleet
// scripts, and a drain run's controller moves are not part of one.)
//
//	go test -tags lockstep_bugs ./propertytests/ -run TestNegative_DrainSkipsRecheck
func TestNegative_DrainSkipsRecheckIsCaughtByThePhaseProperty(t *testing.T) {
	defer setFlag(t, "rapid.nofailfile", "true")()
	defer rapidDefault(t, "rapid.checks", strconv.Itoa(controlChecks))()
	defer rapidDefault(t, "rapid.shrinktime", controlShrinkTime)()
	rec := &recordingTB{T: t}
	var st drainStats
	rapid.Check(rec, drainProperty(t, &st, variant{plant: []defect{drainSkipsRecheck}}))
	if !rec.Failed() {
		t.Fatalf("DrainSkipsRecheck not caught in %s checks (%v)", flag.Lookup("rapid.checks").Value, st)
	}
	msg := strings.Join(rec.msgs, "\n")
	if !strings.Contains(msg, "failed after") || !strings.Contains(msg, "phase:") {
		t.Fatalf("DrainSkipsRecheck caught, but not by the phase property:\n%s", msg)
	}
	first, _, _ := strings.Cut(msg[strings.Index(msg, "phase:"):], "\n")
	t.Logf("caught (%d runs passed, shrinking included): %s", st.runs, first)
}
