package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// The lock-manager workers of a segment meet in slots, so that cycles of
// waits form on purpose rather than by chance: a robustness run must form
// enough of them to judge that every lasting one is broken.
// Slot k is [k·dlSlot, (k+1)·dlSlot) on the run's shared epoch, which every
// worker of the run reads on one host's clock; its kind is the plan's
// letter k mod len(plan) (--lockman-plan), and every worker derives the
// same roles from k, its --lockman-index and --lockman-peers:
//
//	P  pairs (a round of the circle method over the peers): each pair takes
//	   dl-2i and dl-2i+1 in opposite orders: a cycle of two per pair
//	R  a ring of three peers (rotating with k): peer m takes dl-m, then
//	   dl-(m+1 mod 3): a cycle of three; the other peers sit out. With
//	   fewer than three peers an R slot is a P slot
//	T  one peer (rotating with k) holds a tx- id and hands it over; the
//	   others wait for its offer
//
// A worker that is late (its previous work overran) takes the next slot
// that starts after it is free; while it waits for a slot it takes other
// workers' offers.
const (
	dlSlot = 2500 * time.Millisecond
	// dlAsk is when, into its slot, a unit asks for its second id: the
	// peers have taken their first ids by then, so the asks close a cycle.
	dlAsk = 700 * time.Millisecond
	// dlLockTimeout bounds a unit's Lock calls (or --lock-timeout if
	// shorter): well past the cycle checker's bound (5 s), so a cycle
	// detection leaves alone is seen lasting, and short enough that such
	// a cycle frees its peers within a control's window.
	dlLockTimeout = 8 * time.Second
	// DefaultLockmanPlan: three slots of cycles to one of transfers.
	DefaultLockmanPlan = "PRPT"
)

// parseLockmanPlan checks --lockman-plan.
func parseLockmanPlan(s string) error {
	if s == "" {
		return fmt.Errorf("--lockman-plan is empty: give letters P (pairs), R (a ring of three), T (a transfer), e.g. %s", DefaultLockmanPlan)
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r != 'P' && r != 'R' && r != 'T' }); i >= 0 {
		return fmt.Errorf("--lockman-plan %q: letter %q is not P (pairs), R (a ring of three) or T (a transfer)", s, s[i])
	}
	return nil
}

// role is what one worker does in one slot: a unit taking first, then
// second; a handover (give); or nothing.
type role struct {
	first, second string
	give          bool
}

func (r role) unit() bool { return r.first != "" }

// roleIn is the role of peer j of n in slot k under plan.
func roleIn(plan string, k int64, j, n int) role {
	round := int(k / int64(len(plan)))
	switch kind := plan[k%int64(len(plan))]; {
	case kind == 'T':
		return role{give: round%n == j}
	case kind == 'R' && n >= 3:
		m := ((j-round)%n + n) % n
		if m >= 3 {
			return role{}
		}
		return role{first: fmt.Sprintf("dl-%d", m), second: fmt.Sprintf("dl-%d", (m+1)%3)}
	default:
		i, lower, ok := pairOf(round+int(k%int64(len(plan))), j, n)
		if !ok {
			return role{}
		}
		a, b := fmt.Sprintf("dl-%d", 2*i), fmt.Sprintf("dl-%d", 2*i+1)
		if lower {
			return role{first: a, second: b}
		}
		return role{first: b, second: a}
	}
}

// pairOf places peer j of n in round r of the circle method (every pair
// of peers meets once in n−1 rounds, n rounded up to even; with n odd one
// peer sits out each round): the index of its pair in the round and
// whether it is the pair's first member; ok is false when it sits out.
func pairOf(r, j, n int) (i int, first, ok bool) {
	for i, p := range roundPairs(r, n) {
		if p[0] == j || p[1] == j {
			return i, p[0] == j, p[0] < n && p[1] < n
		}
	}
	return 0, false, false
}

// roundPairs are round r's pairs of players 0..m−1, m = n rounded up to
// even (player n is the bye when n is odd): m−1 stays, the others turn.
func roundPairs(r, n int) [][2]int {
	m := n + n%2
	r %= m - 1
	out := [][2]int{{r, m - 1}}
	for d := 1; d < m/2; d++ {
		out = append(out, [2]int{(r + d) % (m - 1), (r - d + m - 1) % (m - 1)})
	}
	return out
}

// slotOf is the slot that starts at or after now, and its start.
func slotOf(now int64) (int64, int64) {
	k := (now + int64(dlSlot) - 1) / int64(dlSlot)
	return k, k * int64(dlSlot)
}

// nextSlot waits for the next slot in which this worker has something to
// do, taking other workers' offers meanwhile, and returns it.
func (m *lockman) nextSlot(ctx context.Context) (int64, int64, role) {
	for ctx.Err() == nil {
		k, start := slotOf(m.clk.Now())
		r := roleIn(m.c.lockmanPlan, k, m.c.lockmanIndex, m.c.lockmanPeers)
		for ctx.Err() == nil && m.clk.Now() < start {
			if m.takeOffer(ctx) {
				break // it may have overrun the slot: look again
			}
			m.sleep(ctx, min(50*time.Millisecond, time.Duration(start-m.clk.Now())))
		}
		if m.clk.Now() >= start && m.clk.Now() < start+int64(dlSlot/5) && (r.unit() || r.give) {
			return k, start, r
		}
	}
	return 0, 0, role{}
}
