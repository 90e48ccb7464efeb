//go:build lockstep_bugs

package election

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// recordingTB is a rapid.TB that records failures instead of failing the
// test, so that a test can assert rapid caught a planted defect.
type recordingTB struct {
	*testing.T
	mu   sync.Mutex
	msgs []string
}

func (r *recordingTB) record(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, s)
}

func (r *recordingTB) Errorf(format string, args ...any) { r.record(fmt.Sprintf(format, args...)) }
func (r *recordingTB) Error(args ...any)                 { r.record(fmt.Sprint(args...)) }
func (r *recordingTB) Fatalf(format string, args ...any) { r.record(fmt.Sprintf(format, args...)) }
func (r *recordingTB) Fatal(args ...any)                 { r.record(fmt.Sprint(args...)) }
func (r *recordingTB) FailNow()                          { r.record("FailNow") }
func (r *recordingTB) Fail()                             { r.record("Fail") }
func (r *recordingTB) Logf(string, ...any)               {}
func (r *recordingTB) Log(...any)                        {}
func (r *recordingTB) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.msgs) > 0
}

// The negative control: with LeaseUnchecked, Done ignores the lease, so a
// leader paused past its lease keeps leading when it resumes, beside the
// successor that won meanwhile. The tenure property must catch it.
func TestElection_LeaseUncheckedIsCaught(t *testing.T) {
	defer checks(t, 500)()
	// Caught is what this test asks; a minimal counterexample would cost
	// half a minute of shrinking, each run a whole simulation.
	defer rapidDefault(t, "rapid.shrinktime", "2s")()
	defer rapidDefault(t, "rapid.nofailfile", "true")()
	rec := &recordingTB{T: t}
	wins := 0
	start := time.Now()
	rapid.Check(rec, electionProperty(t, &TestingKnobs{LeaseUnchecked: true}, &wins))
	if !rec.Failed() {
		t.Fatalf("planted LeaseUnchecked not caught (%d tenures checked)", wins)
	}
	msg := strings.Join(rec.msgs, "\n")
	if !strings.Contains(msg, "failed after") || !strings.Contains(msg, "tenure:") {
		t.Fatalf("planted LeaseUnchecked caught, but not by the tenure property:\n%s", msg)
	}
	head, _, _ := strings.Cut(msg, "\n")
	t.Logf("caught in %v (shrinking included): %s", time.Since(start).Round(time.Millisecond), strings.TrimPrefix(head, "[rapid] "))
}
