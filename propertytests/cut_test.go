package propertytests

import (
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// The legacy-tables cut (random-phase action actCut): for a while, every
// request one process sends to the legacy lock's tables fails, applied
// nowhere, while its requests to every other table are served as before.
//
// Per-message faults (a lost hint, a timeout, a slow request) hit the
// queue table and the legacy tables alike, and a pause stops a process's
// requests to both: neither makes a combined lock's legacy half fail
// alone for a whole lease window while its queue half renews. A cut does,
// and so do real deployments: the legacy tables often live in a keyspace
// of their own (the old application's), whose replicas can be unreachable
// from a process's data centre while the new keyspace's are not; a role's
// grant on that keyspace can be revoked, or its replication changed, by an
// operator tidying up after the rollout. A combined holder must then see
// its legacy lease lapse (Lost closes), and stop working, although its
// queue lease is healthy: the lease property (harness.work) and the
// owner-cell property (ownercell_test.go) judge both halves.
//
// A cut fails a request when the scheduler would send it (harness.grant):
// a write is timed out applied by no replica and its messages dropped, a
// read is timed out. What was sent before the cut began is not recalled.
// A cut still running when the quiet phase begins runs its course under
// the fair schedule, safety checked, before the liveness bounds start
// counting (liveness_test.go).

// cutFor are the lengths a cut can have: from half a TTL (shorter than a
// lease window, the benign choice where shrinking goes) to 2.5 TTLs.
func cutFor(ch sim.Chooser) time.Duration {
	return time.Duration(1+ch.Choose("cut length", 5)) * ttl / 2
}

// cutLegacy cuts one live process off the legacy tables; it is not
// applicable to a process that never uses them.
func (h *harness) cutLegacy(ch sim.Chooser) bool {
	pr := h.pick(ch)
	if pr == nil || pr.kind.mode == lockstep.ModeNew {
		return false
	}
	d := cutFor(ch)
	if h.cutUntil == nil {
		h.cutUntil = map[*sim.Process]int64{}
	}
	h.cutUntil[pr.sp] = max(h.cutUntil[pr.sp], h.s.Now()+d.Microseconds())
	h.event("cut %s off the legacy tables for %v", pr.sp.Name, d)
	return true
}

// endCuts ends every cut (the quiet phase, once they ran their course).
func (h *harness) endCuts() { h.cutUntil = nil }

// isLegacyTable reports whether table is one of the legacy lock's.
func isLegacyTable(table string) bool {
	return table == shadowlock.DefaultMainTable || table == shadowlock.DefaultShadowTable
}

// grant lets y proceed, as sim.Grant does, unless y is a request not yet
// sent to a legacy table by a process cut off them: then it fails.
func (h *harness) grant(y *sim.Yield, ch sim.Chooser) {
	if y.Kind == sim.Sleep || !isLegacyTable(y.Table) || h.cutUntil[y.Proc] <= h.s.Now() {
		h.s.Grant(y, ch)
		return
	}
	h.mu.Lock()
	sent := h.sent[y]
	h.mu.Unlock()
	if sent {
		h.s.Grant(y, ch) // a write sent before the cut, waiting for its acknowledgements
		return
	}
	h.mu.Lock()
	h.event("fail %v: %s is cut off the legacy tables", y, y.Proc.Name)
	h.mu.Unlock()
	s, before := h.s, h.s.Messages()
	s.Timeout(y, zeroChooser{}) // a write: applied by no replica (allSets: none first)
	for s.Messages() > before {
		s.Drop(s.Messages() - 1) // and never delivered
	}
}

// stepAny grants one runnable yield chosen by ch, first moving time until
// something can run, as sim.Step does, through grant; it reports false if
// nothing can ever run.
func (h *harness) stepAny(ch sim.Chooser) bool {
	s := h.s
	ys := s.Runnable()
	for len(ys) == 0 {
		if !s.Tick() {
			return false
		}
		ys = s.Runnable()
	}
	h.grant(ys[ch.Choose("yield", len(ys))], ch)
	return true
}
