package check

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep/robustness/history"
	"github.com/lockstep-go/lockstep/robustness/register"
)

// ms is a time in the hand-made histories: milliseconds since the epoch.
func ms(n int64) int64 { return n * int64(time.Millisecond) }

// window is the lease window of the hand-made holds: 1s.
var window = ms(1000)

// hist builds a history by hand; times are in ms.
type hist struct {
	recs []history.Record
	ops  []register.Op
}

func (h *hist) acquire(p, lock string, token, inv, ret int64) *hist {
	h.recs = append(h.recs, history.Record{Process: p, Lock: lock, Op: history.Acquire, Token: token, Mode: "new",
		InvokeNS: ms(inv), ReturnNS: ms(ret), Outcome: history.OK, LeaseDeadlineNS: ms(inv) + window, LeaseWindowNS: window})
	return h
}

func (h *hist) renew(p, lock string, sentLB, ret int64) *hist {
	h.recs = append(h.recs, history.Record{Process: p, Lock: lock, Op: history.Renew, InvokeNS: ms(sentLB), ReturnNS: ms(ret),
		Outcome: history.OK, LeaseDeadlineNS: ms(sentLB) + window})
	return h
}

func (h *hist) release(p, lock string, inv, ret int64) *hist {
	r := history.Record{Process: p, Lock: lock, Op: history.Release, InvokeNS: ms(inv), ReturnNS: ms(ret), Outcome: history.OK}
	if ret < 0 {
		r.ReturnNS, r.Outcome = history.Never, history.Unknown
	}
	h.recs = append(h.recs, r)
	return h
}

func (h *hist) lost(p, lock string, deadline, seen int64) *hist {
	h.recs = append(h.recs, history.Record{Process: p, Lock: lock, Op: history.Lost, InvokeNS: ms(min(deadline, seen)), ReturnNS: ms(seen),
		Outcome: history.OK, LeaseDeadlineNS: ms(deadline)})
	return h
}

// write logs a fenced write as the register would have applied it.
func (h *hist) write(p, lock string, token, prev, before, at int64, accepted bool) *hist {
	h.ops = append(h.ops, register.Op{Seq: int64(len(h.ops) + 1), AtNS: ms(at), Kind: register.WriteFenced, Lock: lock,
		Process: p, Token: token, Prev: prev, Value: prev + 1, Before: before, Accepted: accepted})
	return h
}

func (h *hist) counter(p, lock string, prev, before, at int64) *hist {
	h.ops = append(h.ops, register.Op{Seq: int64(len(h.ops) + 1), AtNS: ms(at), Kind: register.WriteCounter, Lock: lock,
		Process: p, Prev: prev, Value: prev + 1, Before: before, Accepted: true})
	return h
}

func (h *hist) check(t *testing.T, opts Options) Report {
	t.Helper()
	r, err := Records(h.recs, h.ops, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustFlag(t *testing.T, r Report, checker, substr string) {
	t.Helper()
	for _, v := range r.Violations {
		if v.Checker == checker && strings.Contains(v.Detail, substr) {
			return
		}
	}
	t.Fatalf("no %s violation containing %q:\n%s", checker, substr, r.Summary())
}

func mustPass(t *testing.T, r Report) {
	t.Helper()
	if len(r.Violations) > 0 {
		t.Fatalf("violations in a correct history:\n%s", r.Summary())
	}
}

func TestMutex_TwoOverlappingHoldersAreFlagged(t *testing.T) {
	h := new(hist).
		acquire("a", "l", 1, 0, 10).
		acquire("b", "l", 2, 5, 300). // a still holds: its lease runs to 1000
		release("a", "l", 400, 410).
		release("b", "l", 500, 510)
	dir := t.TempDir()
	r := h.check(t, Options{VisualizeDir: dir})
	mustFlag(t, r, "mutex", "a (new, token 1) held from 0.010s until at least 0.400s; b (new, token 2) acquired at 0.300s")
	mustFlag(t, r, "mutex", "mutex-l.html")
	if b, err := os.ReadFile(filepath.Join(dir, "mutex-l.html")); err != nil || !strings.Contains(string(b), "acquire b") {
		t.Fatalf("visualization: %v", err)
	}
}

func TestMutex_AcquireBeforeTheExpiredHoldersDeadlineIsFlagged(t *testing.T) {
	// a's lease was lost, but b got in before a's deadline (renewed at 700,
	// so 1700): the contract admits nobody before it.
	h := new(hist).
		acquire("a", "l", 1, 0, 10).
		renew("a", "l", 700, 750).
		acquire("b", "l", 2, 900, 1200).
		lost("a", "l", 1700, 2500).
		release("a", "l", 2500, 2510).
		release("b", "l", 2600, 2610)
	mustFlag(t, h.check(t, Options{}), "mutex", "")
}

func TestMutex_KilledHolderBlocksUntilItsDeadline(t *testing.T) {
	bad := new(hist).acquire("a", "l", 1, 0, 10).acquire("b", "l", 2, 5, 800).release("b", "l", 900, 910)
	mustFlag(t, bad.check(t, Options{}), "mutex", "acquired at 0.800s")
	good := new(hist).acquire("a", "l", 1, 0, 10).acquire("b", "l", 2, 5, 1500).release("b", "l", 1600, 1610)
	mustPass(t, good.check(t, Options{}))
}

func TestMutex_CorrectHistoriesPass(t *testing.T) {
	h := new(hist).
		// plain handoffs, with overlapping Lock calls
		acquire("a", "l", 1, 0, 10).
		acquire("b", "l", 2, 5, 120).
		release("a", "l", 100, 110).
		release("b", "l", 200, -1). // unknown outcome: may land any time later
		acquire("c", "l", 3, 150, 2000).
		// a lease lost, noticed late; the successor came after the deadline
		lost("c", "l", 3000, 5000).
		acquire("a", "l", 4, 2100, 3500).
		release("c", "l", 5000, 5010).
		release("a", "l", 6000, 6010).
		// another lock is independent
		acquire("b", "m", 1, 6100, 6110).
		acquire("c", "m", 2, 6100, 6300).
		release("b", "m", 6200, 6210).
		release("c", "m", 6400, 6410)
	// reorder per process as workers write them (Records groups by process)
	mustPass(t, h.check(t, Options{}))
}

func TestFenced_LostUpdateIsFlagged(t *testing.T) {
	h := new(hist).
		acquire("a", "l", 1, 0, 10).write("a", "l", 1, 0, 0, 20, true).release("a", "l", 30, 40).
		acquire("b", "l", 2, 50, 60).write("b", "l", 2, 0, 1, 70, true).release("b", "l", 80, 90)
	mustFlag(t, h.check(t, Options{}), "fenced", "lost update: b (token 2) read 0 but overwrote 1")
}

func TestFenced_TokenGoingBackwardsIsFlagged(t *testing.T) {
	h := new(hist).
		acquire("a", "l", 7, 0, 10).write("a", "l", 7, 0, 0, 20, true).release("a", "l", 30, 40).
		acquire("b", "l", 5, 50, 60).write("b", "l", 5, 1, 1, 70, true).release("b", "l", 80, 90)
	mustFlag(t, h.check(t, Options{}), "fenced", "token 5 at 0.070s (op 2) after a's token 7")
}

func TestFenced_RejectionFromOpenLeaseIsFlagged(t *testing.T) {
	// a's lease runs to 1000 (renewed at 300: 1300); its write is rejected
	// at 1100, so someone with a later token had reached the register.
	h := new(hist).
		acquire("a", "l", 1, 0, 10).renew("a", "l", 300, 350).
		write("a", "l", 1, 0, 1, 1100, false).
		release("a", "l", 1200, 1210)
	mustFlag(t, h.check(t, Options{}), "fenced", "whose lease was open until at least 1.300s")
}

func TestFenced_RejectionAfterLapseAndUnfencedLostUpdatesPass(t *testing.T) {
	// a paused past its lease; b took over; a's late write is rejected,
	// and its late counter write loses b's update: no violation unless
	// StrictCounter.
	h := new(hist).
		acquire("a", "l", 1, 0, 10).
		acquire("b", "l", 2, 100, 1500).write("b", "l", 2, 0, 0, 1600, true).counter("b", "l", 0, 0, 1610).
		write("a", "l", 1, 0, 1, 2000, false).counter("a", "l", 0, 1, 2010).
		lost("a", "l", 1000, 2020).release("a", "l", 2030, 2040).release("b", "l", 2100, 2110)
	r := h.check(t, Options{})
	mustPass(t, r)
	if r.CounterLostUpdates != 1 || r.FencedRejected != 1 || r.FencedAccepted != 1 || r.Lost != 1 {
		t.Fatalf("figures: %+v", r)
	}
	mustFlag(t, h.check(t, Options{StrictCounter: true}), "counter", "a read 0 but overwrote 1")
}

func TestLiveness_WorkerThatNeverAcquiresAfterHealIsFlagged(t *testing.T) {
	h := new(hist).
		acquire("a", "l", 1, 0, 10).release("a", "l", 20, 30).
		acquire("a", "l", 3, 10000, 10100).release("a", "l", 10200, 10300).
		acquire("b", "l", 2, 40, 50).release("b", "l", 60, 70)
	h.recs = append(h.recs, history.Record{Process: "b", Lock: "l", Op: history.Acquire, InvokeNS: ms(9000), ReturnNS: ms(45000), Outcome: history.Fail, Err: "timeout"})
	r := h.check(t, Options{HealNS: ms(9000), LivenessBound: 20 * time.Second})
	mustFlag(t, r, "liveness", "b acquired no lock between the final heal at 9.000s and 29.000s")
	if len(r.Violations) != 1 {
		t.Fatalf("a acquired in time but was flagged:\n%s", r.Summary())
	}
}

func TestMutex_LongHistoryIsCheckedQuickly(t *testing.T) {
	// 4 workers, 5000 handoffs on one lock, every Lock call overlapping the
	// previous hold: porcupine must decide it well inside its timeout.
	h := new(hist)
	for i := int64(0); i < 5000; i++ {
		p := fmt.Sprintf("w%d", i%4)
		t0 := i * 100
		h.acquire(p, "l", i+1, t0-150, t0+10).release(p, "l", t0+80, t0+90)
	}
	start := time.Now()
	r := h.check(t, Options{Timeout: 20 * time.Second})
	mustPass(t, r)
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("5000 holds took %v", d)
	}
	t.Logf("5000 holds checked in %v", r.MutexTime)
}

func TestMutex_UnknownReleasesStayCheap(t *testing.T) {
	// Every tenth release has an unknown outcome, so it never returns and
	// stays concurrent with everything after it: the search must still be
	// quick, because a release can only linearize while its process holds.
	h := new(hist)
	for i := int64(0); i < 2000; i++ {
		p := fmt.Sprintf("w%d", i%4)
		t0 := i * 100
		ret := t0 + 90
		if i%10 == 0 {
			ret = -1
		}
		h.acquire(p, "l", i+1, t0-150, t0+10).release(p, "l", t0+80, ret)
	}
	r := h.check(t, Options{Timeout: 20 * time.Second})
	mustPass(t, r)
	if r.MutexTime > 10*time.Second || r.Unknown != 200 {
		t.Fatalf("2000 holds, 200 unknown releases: %v, %d unknown", r.MutexTime, r.Unknown)
	}
	t.Logf("2000 holds with 200 unknown releases checked in %v", r.MutexTime)
}

func TestBypass_StarvedQueueWaiterIsFlagged(t *testing.T) {
	// Two processes: a waits from 1000 to 9000 while b acquires 4 times;
	// the queue lock allows 2(2−1) = 2.
	h := new(hist).acquire("a", "l", 10, 1000, 9000).release("a", "l", 9100, 9110)
	for i := int64(0); i < 4; i++ {
		t0 := 1500 + i*1000
		h.acquire("b", "l", i+1, t0, t0+10).release("b", "l", t0+100, t0+110)
	}
	r := h.check(t, Options{HealNS: ms(500), LivenessBound: time.Minute})
	mustFlag(t, r, "bypass", "a (new) waited from 1.000s to 9.000s while others acquired 4 times; the queue lock allows 2")
	if r.MaxBypass != 4 {
		t.Fatalf("MaxBypass %d", r.MaxBypass)
	}
	mustPass(t, h.check(t, Options{HealNS: ms(500), LivenessBound: time.Minute, BypassSlack: 2}))
	for i := range h.recs {
		if h.recs[i].Process == "b" && h.recs[i].Op == history.Acquire {
			h.recs[i].Mode = "legacy" // unfair by design: not checked
		}
	}
	mustPass(t, h.check(t, Options{HealNS: ms(500), LivenessBound: time.Minute}))
}

func TestLiveness_LegacyFleetsNeedOnlyBeDeadlockFree(t *testing.T) {
	h := new(hist)
	for i := int64(0); i < 30; i++ {
		h.acquire("a", "l", i+1, 10000+i*1000, 10000+i*1000+10).release("a", "l", 10000+i*1000+500, 10000+i*1000+510)
	}
	h.recs = append(h.recs, history.Record{Process: "b", Lock: "l", Op: history.Acquire, InvokeNS: ms(9000), ReturnNS: ms(45000), Outcome: history.Fail, Err: "timeout"})
	opts := Options{HealNS: ms(9000), LivenessBound: 20 * time.Second}
	mustFlag(t, h.check(t, opts), "liveness", "b acquired no lock") // a queue fleet: b starved
	for i := range h.recs {
		if h.recs[i].Op == history.Acquire && h.recs[i].Outcome == history.OK {
			h.recs[i].Mode = "legacy"
		}
	}
	mustPass(t, h.check(t, opts)) // legacy: unfair, but a made progress
	stuck := new(hist).acquire("a", "l", 1, 0, 10).release("a", "l", 20, 30)
	stuck.recs[0].Mode = "legacy"
	stuck.recs = append(stuck.recs,
		history.Record{Process: "a", Lock: "l", Op: history.Acquire, InvokeNS: ms(100), ReturnNS: ms(40000), Outcome: history.Fail, Err: "timeout"},
		history.Record{Process: "a", Lock: "l", Op: history.Acquire, Mode: "legacy", InvokeNS: ms(40000), ReturnNS: ms(41000), Outcome: history.OK, LeaseDeadlineNS: ms(41000)})
	mustFlag(t, stuck.check(t, Options{HealNS: ms(50), LivenessBound: 20 * time.Second}), "liveness", "no worker acquired any lock")
}

func TestHarness_MisalignedEpochIsFlagged(t *testing.T) {
	h := new(hist).acquire("a", "l", 1, 0, 10).release("a", "l", 300, 310)
	h.recs = append(h.recs, history.Record{Process: "a", Lock: "l", Op: history.Write, Token: 1, InvokeNS: ms(100), ReturnNS: ms(110),
		Outcome: history.OK, Register: history.Fenced, Read: 0, Value: 1})
	h.write("a", "l", 1, 0, 0, 105, true)
	r := h.check(t, Options{})
	mustPass(t, r)
	if r.Misalignment != 0 {
		t.Fatalf("aligned write: misalignment %d", r.Misalignment)
	}
	h.ops[0].AtNS = ms(2000) // the register's epoch is off by seconds
	mustFlag(t, h.check(t, Options{}), "harness", "wrong --epoch-unix-ns")
}
