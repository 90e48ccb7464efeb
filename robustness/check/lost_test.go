package check

import (
	"testing"
)

// lockdAcquire is a hold of a lockd client: mode lockd, its deadline the
// instant Lock returned (the worker knows no lease).
func (h *hist) lockdAcquire(p, lock string, token, inv, ret int64) *hist {
	h.acquire(p, lock, token, inv, ret)
	r := &h.recs[len(h.recs)-1]
	r.Mode, r.LeaseDeadlineNS, r.LeaseWindowNS = "lockd", ms(ret), 0
	return h
}

// lockdEvent is an event from..to (ms) affecting clients.
func lockdEvent(name string, from, to int64, clients ...string) LockdEvent {
	return LockdEvent{Name: name, Clients: clients, From: ms(from), To: ms(to)}
}

// A hold of an affected client that spans the event and ends lost passes;
// one that ends by a successful Unlock after the event is flagged; holds
// that ended before the event, began after its heal, or belong to a client
// it did not affect are not judged.
func TestLockdLoss_EverySpanningHoldMustEndLost(t *testing.T) {
	h := (&hist{}).
		lockdAcquire("c1", "L", 1, 0, 10).release("c1", "L", 50, 60).          // ended before the event
		lockdAcquire("c1", "L", 2, 90, 100).lost("c1", "L", 1200, 1300).       // spans, lost
		lockdAcquire("c1", "M", 3, 3000, 3100).release("c1", "M", 3200, 3300). // after the heal
		lockdAcquire("c2", "N", 4, 90, 100).release("c2", "N", 2000, 2100)     // not affected
	ev := lockdEvent("kill-lockd l1", 1000, 2500, "c1")
	r := h.check(t, Options{LockdEvents: []LockdEvent{ev}})
	if len(r.Violations) != 0 || r.LockdEvents != 1 || r.LockdSpanning != 1 || r.LockdLost != 1 {
		t.Fatalf("clean history: %+v", r)
	}

	bad := (&hist{}).
		lockdAcquire("c1", "L", 1, 90, 100).release("c1", "L", 1500, 1600) // spans, "released" as if nothing happened
	r = bad.check(t, Options{LockdEvents: []LockdEvent{ev}})
	mustFlag(t, r, "lockd-loss", "ended it by a successful Unlock")

	open := (&hist{}).lockdAcquire("c1", "L", 1, 90, 100) // never ended
	r = open.check(t, Options{LockdEvents: []LockdEvent{ev}})
	mustFlag(t, r, "lockd-loss", "records no end")

	// An Unlock invoked before the event ends the hold before it, even if
	// it returns during the event.
	before := (&hist{}).lockdAcquire("c1", "L", 1, 90, 100).release("c1", "L", 900, 1100)
	if r = before.check(t, Options{LockdEvents: []LockdEvent{ev}}); len(r.Violations) != 0 || r.LockdSpanning != 0 {
		t.Fatalf("Unlock before the event: %+v", r)
	}
}

// A lost lockd hold ends at the instant the client knew: another holder
// after it is fine, one before it overlaps and the mutex model says so.
func TestLockdLoss_HoldEndsWhenTheClientKnew(t *testing.T) {
	ok := (&hist{}).
		lockdAcquire("c1", "L", 1, 0, 100).lost("c1", "L", 3000, 3000).
		acquire("w1", "L", 2, 500, 3100).release("w1", "L", 3200, 3300)
	if r := ok.check(t, Options{}); len(r.Violations) != 0 {
		t.Fatalf("successor after the client knew: %v", r.Violations)
	}
	late := (&hist{}).
		lockdAcquire("c1", "L", 1, 0, 100).lost("c1", "L", 3000, 3000).
		acquire("w1", "L", 2, 500, 2000).release("w1", "L", 3200, 3300)
	mustFlag(t, late.check(t, Options{}), "mutex", "c1")
}

// A client given every lockd must lose nothing to any lockd event: its
// spanning hold kept across the event (released after it) passes, one lost
// is flagged, whichever lockd the event struck; a single-endpoint client
// affected by the same event is still judged the old way.
func TestLockdLoss_AMoverLosesNothing(t *testing.T) {
	ev := lockdEvent("pause-lockd l2", 1000, 2500, "single")
	kept := (&hist{}).
		lockdAcquire("mover", "L", 1, 90, 100).release("mover", "L", 3000, 3100).
		lockdAcquire("single", "M", 2, 90, 100).lost("single", "M", 1200, 1300)
	r := kept.check(t, Options{LockdEvents: []LockdEvent{ev}, LockdMovers: []string{"mover"}})
	if len(r.Violations) != 0 || r.LockdMoverSpanning != 1 || r.LockdLostByMover != 0 || r.LockdSpanning != 1 || r.LockdLost != 1 {
		t.Fatalf("kept across the event: %+v", r)
	}
	lost := (&hist{}).
		lockdAcquire("mover", "L", 1, 90, 100).lost("mover", "L", 1400, 1500)
	r = lost.check(t, Options{LockdEvents: []LockdEvent{ev}, LockdMovers: []string{"mover"}})
	mustFlag(t, r, "lockd-loss", "a client given every lockd")
	if r.LockdLostByMover != 1 {
		t.Fatalf("lost by a mover: %+v", r)
	}
	// A hold spanning two events counts once.
	r = lost.check(t, Options{LockdEvents: []LockdEvent{ev, lockdEvent("kill-lockd l1", 1100, 1200)}, LockdMovers: []string{"mover"}})
	if len(r.Violations) != 1 || r.LockdLostByMover != 1 || r.LockdMoverSpanning != 1 {
		t.Fatalf("one hold, two events: %+v", r)
	}
	// Its own time ran out (Expired): by rule, not a fail-over's failure.
	ran := (&hist{}).lockdAcquire("mover", "L", 1, 90, 100).lost("mover", "L", 1400, 1500)
	ran.recs[len(ran.recs)-1].Expired = true
	r = ran.check(t, Options{LockdEvents: []LockdEvent{ev}, LockdMovers: []string{"mover"}})
	if len(r.Violations) != 0 || r.LockdExpiredByMover != 1 || r.LockdLostByMover != 0 {
		t.Fatalf("time ran out: %+v", r)
	}
	// Not a mover, not affected: not judged.
	if r = lost.check(t, Options{LockdEvents: []LockdEvent{ev}}); len(r.Violations) != 0 {
		t.Fatalf("an unaffected single client: %v", r.Violations)
	}
}

// lostInUnlock is a mover's loss that surfaced in its Unlock invoked at inv
// (ms): the lost record starts there, says InUnlock, and the watcher saw
// Lost close at known; the release follows, invoked at inv too.
func (h *hist) lostInUnlock(p, lock string, inv, known, ret int64) *hist {
	h.lost(p, lock, known, inv)
	r := &h.recs[len(h.recs)-1]
	r.InUnlock, r.KnownNS = true, ms(known)
	return h.release(p, lock, inv, ret)
}

// A mover's lock valid when its Unlock was invoked, and reported lost by
// that Unlock (its lockd stopped under the Unlock, the move did not carry
// the lock), ended at the Unlock: counted apart, not a violation. The same
// label without the records' evidence is flagged: the watcher saw Lost
// close before the Unlock (a loss during the hold), the watcher saw nothing
// (a worker without one, as the planted lockd-ignores-lost), or the loss
// starts before the Unlock's invocation.
func TestLockdLoss_AMoversLossInItsUnlockEndsAtTheUnlock(t *testing.T) {
	ev := lockdEvent("cut-lockd-client other", 1000, 1200, "other")
	opts := Options{LockdEvents: []LockdEvent{ev}, LockdMovers: []string{"mover"}}
	ok := (&hist{}).lockdAcquire("mover", "L", 1, 90, 100).lostInUnlock("mover", "L", 1100, 2300, 6000)
	r := ok.check(t, opts)
	if len(r.Violations) != 0 || r.LockdUnlockLostByMover != 1 || r.LockdLostByMover != 0 || r.LockdMoverSpanning != 1 {
		t.Fatalf("lost in its Unlock: %+v", r)
	}

	knownBefore := (&hist{}).lockdAcquire("mover", "L", 1, 90, 100).lostInUnlock("mover", "L", 1100, 1050, 6000)
	knownBefore.recs[1].InvokeNS = ms(1100) // the label and the start claim the Unlock; the watcher says earlier
	mustFlag(t, knownBefore.check(t, opts), "lockd-loss", "a client given every lockd")

	noWatcher := (&hist{}).lockdAcquire("mover", "L", 1, 90, 100).lostInUnlock("mover", "L", 1100, 2300, 6000)
	noWatcher.recs[1].KnownNS = 0
	mustFlag(t, noWatcher.check(t, opts), "lockd-loss", "a client given every lockd")

	startsBefore := (&hist{}).lockdAcquire("mover", "L", 1, 90, 100).lostInUnlock("mover", "L", 1100, 2300, 6000)
	startsBefore.recs[1].InvokeNS = ms(1050) // the loss's deadline came before the Unlock
	r = startsBefore.check(t, opts)
	mustFlag(t, r, "lockd-loss", "a client given every lockd")
	if r.LockdUnlockLostByMover != 0 || r.LockdLostByMover != 1 {
		t.Fatalf("a loss before the Unlock, labelled in it: %+v", r)
	}
}
