package check

import (
	"testing"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// acquireAs is acquire with the acquisition's owner id.
func (h *hist) acquireAs(p, lock, owner string, token, inv, ret int64) *hist {
	h.acquire(p, lock, token, inv, ret)
	h.recs[len(h.recs)-1].Owner = owner
	return h
}

// Two goroutines of one worker process (history.Holder) are two holders:
// the mutex model flags their overlap as it would two processes'.
func TestMutex_TwoGoroutinesOfOneProcessOverlapping(t *testing.T) {
	g0, g1 := history.Holder("w", 0), history.Holder("w", 1)
	h := new(hist).
		acquireAs(g0, "l", "w.1", 1, 0, 10).
		acquireAs(g1, "l", "w.2", 2, 5, 300). // g0 still holds
		release(g0, "l", 400, 410).
		release(g1, "l", 500, 510)
	mustFlag(t, h.check(t, Options{}), "mutex", "w/g0 (new, token 1) held from 0.010s until at least 0.400s; w/g1 (new, token 2) acquired at 0.300s")
}

// A store hold handed between goroutines: the grants count as local
// handoffs and pass with rising tokens; the planted ReuseToken (the
// handed goroutine keeps the token) is flagged by tokens, as is a token
// below one returned before the Lock call began.
func TestTokens_HandedGrantsRiseAndAreCounted(t *testing.T) {
	g0, g1 := history.Holder("w", 0), history.Holder("w", 1)
	chain := func(t1, t2, t3 int64) *hist {
		return new(hist).
			acquireAs(g0, "l", "w.1", t1, 0, 10).
			acquireAs(g1, "l", "w.1", t2, 5, 210). // waited in the line; handed at g0's Unlock
			release(g0, "l", 200, 205).
			acquireAs(g0, "l", "w.1", t3, 300, 410). // handed back at g1's Unlock
			release(g1, "l", 400, 405).
			release(g0, "l", 500, 505).
			acquireAs("v", "l", "v.1", t3+1, 100, 600). // another process, after the store release
			release("v", "l", 700, 705)
	}
	r := chain(1, 2, 3).check(t, Options{})
	mustPass(t, r)
	if r.LocalHandoffs != 2 {
		t.Fatalf("LocalHandoffs %d, want 2", r.LocalHandoffs)
	}
	r = chain(1, 1, 1).check(t, Options{})
	mustFlag(t, r, "tokens", "w/g1 was handed w/g0's store hold (owner w.1) and got token 1 at 0.210s, not above that holder's 1")
	mustFlag(t, r, "tokens", "w/g0's Lock call began at 0.300s, after w/g1's returned at 0.210s with token 1, and got token 1, not above it")

	// A token below one returned before the Lock call began, across processes.
	h := new(hist).acquire("a", "l", 5, 0, 10).release("a", "l", 100, 110).acquire("b", "l", 4, 20, 200).release("b", "l", 300, 310)
	mustFlag(t, h.check(t, Options{}), "tokens", "b's Lock call began at 0.020s, after a's returned at 0.010s with token 5, and got token 4")
}

// The bypass bound counts store acquisitions of other worker processes:
// three holds of one store hold, handed between two goroutines, are one
// bypass; the waiter's own process's goroutines are none.
func TestBypass_OneStoreHoldHandedOnIsOneBypass(t *testing.T) {
	h := new(hist).acquire("a", "l", 100, 1000, 9000).release("a", "l", 9100, 9110)
	for i, g := range []int{0, 1, 0} { // one store hold of w, handed twice
		t0 := 1500 + int64(i)*1000
		h.acquireAs(history.Holder("w", g), "l", "w.1", int64(i)+1, t0, t0+10).release(history.Holder("w", g), "l", t0+100, t0+110)
	}
	for i, g := range []int{0, 1, 0} { // three store holds of w
		t0 := 4500 + int64(i)*1000
		h.acquireAs(history.Holder("w", g), "l", "w."+string(rune('2'+i)), int64(i)+10, t0, t0+10).release(history.Holder("w", g), "l", t0+100, t0+110)
	}
	r := h.check(t, Options{HealNS: ms(500), LivenessBound: 0})
	mustFlag(t, r, "bypass", "a (new) waited from 1.000s to 9.000s while others acquired 4 times; the queue lock allows 2 with 2 processes")
}

// One holder's successive holds with one owner (a Python lockd client
// records its session as every lock's owner) are no handoff: a goroutine
// is never handed its own store hold.
func TestTokens_OneHoldersSuccessiveHoldsAreNoHandoff(t *testing.T) {
	h := new(hist).acquireAs("py", "l", "s1", 1, 0, 10).release("py", "l", 100, 110).
		acquireAs("py", "l", "s1", 2, 200, 210).release("py", "l", 300, 310)
	if r := h.check(t, Options{}); r.LocalHandoffs != 0 || len(r.Violations) != 0 {
		t.Fatalf("LocalHandoffs %d, want 0:\n%s", r.LocalHandoffs, r.Summary())
	}
}
