package propertytests

import (
	"context"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
)

// The arrival storm (internal/queue/fastpath.go). A fast claim writes the
// arrival's owner cell before it knows whether it is first in line, and
// while that cell exists the queue head's own claim reads it and fails. A
// process whose Lock calls are cancelled one after another arrives again and
// again; the contention hint sends its Locker down the slow path (no owner
// cell unless first in line) for a TTL after a fast claim that did not win.
// The "new+storm" fleet (fleet_test.go) runs honest users beside two storm
// processes and checks the usual properties — exclusion, ownership and lease
// after every action, starvation freedom with bounded bypass for the honest
// waiters in the quiet phase, where the storm goes on — and the negative
// control IgnoreContentionHint (negative_test.go) plants the defect in the
// storm processes' Locks and must be caught by liveness.
//
// Why the storm arrives every Poll/4. In the quiet phase every request is
// served at the instant it is made, so an arrival's owner cell exists for no
// virtual time: it fails the head's claim only if the arrival comes at the
// very instant of one of the head's reads. The head, next in line, re-reads
// every Poll/4 (queuelock's nextPoll) while it sees an owner cell; a storm
// arriving every Poll/4 in phase with it meets every one of those reads, and
// the head starves, while a storm that misses one read lets the head claim
// alone there. Measured with the hint ignored, on 100 seeded schedules of
// this fleet per cadence (100 random actions, then the quiet phase): Poll/4 =
// 125 ms failed 36, and so does the schedule with no random phase at all;
// 100, 200 and 500 ms failed none; 50 ms 20 and 25 ms — every instant at
// which anything can happen, every sleep being a multiple of 25 ms — 64, at
// 2.5 and 6.5 times the cost. With the hint honoured all of them passed.
// (While the head re-read every Poll, before queuelock 6f95efe, a 100 ms
// storm was the one that caught it, 66 to 81 in 100.) So the cadence follows
// the head's re-read interval: should that change, the control fails as not
// caught, and this constant must follow it.
//
// Varying delays belong to the second storm process, which alone cannot
// starve the head (none of 100 with the hint ignored): it has Locks cancelled
// at every stage — before the first read, while waiting in line across
// polls, after its queue cell was renewed — and hints that expire mid-storm.
// The random phase varies both processes further: its ticks, slow requests
// and pauses shift their phases and cut Locks short at any step.
const (
	stormCadence  = poll / 4
	stormWorkStep = 100 * time.Millisecond // a storm acquisition works workSteps of these
)

// varyingDelays are the waits of the second storm process, in turn: less
// than a poll, between polls, and beyond Renew (its queue cell renewed
// before the cancel). Multiples of Poll/4, so it too meets the head's reads.
var varyingDelays = []time.Duration{3 * poll / 4, 9 * poll / 4, 5 * poll / 4, 19 * poll / 4, 15 * poll / 4}

var (
	storm        = kind{name: "storm", mode: lockstep.ModeNew, new: queue.new, user: stormUser(stormCadence), storm: true}
	varyingStorm = kind{name: "storm/varying", mode: lockstep.ModeNew, new: queue.new, user: stormUser(varyingDelays...), storm: true}
)

// stormUser returns the behaviour of a storm process: call Lock on lockID
// with a context that is cancelled after the next of delays by the process's
// clock, and arrive again at once. A Lock that wins is a storm acquisition:
// the process holds the lock as a correct user does, briefly (stormHold),
// and arrives again at once after its release, as a loop of Lock, work,
// Unlock does.
func stormUser(delays ...time.Duration) func(h *harness, ctx context.Context, pr *proc) {
	return func(h *harness, ctx context.Context, pr *proc) {
		for n := 0; ctx.Err() == nil; n++ {
			// Every turn takes virtual time (the cancel comes after a
			// sleep, a hold sleeps), so this loop never spins.
			l, err := h.arrive(ctx, pr, delays[n%len(delays)])
			if err == nil && !h.stormHold(ctx, pr, l) {
				return
			}
		}
	}
}

// arrive calls Lock with a context that a goroutine of the process cancels
// after d (a yield point, like every sleep), and waits for that goroutine
// before it returns. The storm processes' Lockers carry h.v.bugs and
// h.v.stormBugs.
func (h *harness) arrive(ctx context.Context, pr *proc, d time.Duration) (lockstep.Lock, error) {
	lockCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	pr.sp.Go(func(context.Context) {
		defer close(done)
		if pr.sp.Clock().Sleep(lockCtx, d) == nil {
			cancel()
		}
	})
	h.mu.Lock()
	pr.arrivals++
	h.mu.Unlock()
	l, err := pr.locker.Lock(lockCtx, lockID)
	cancel() // the lease does not depend on ctx; this ends the timer
	<-done
	return l, err
}

// stormHold is a storm acquisition: the process works workSteps short steps,
// checking Lost() before each, as harness.user does, and releases. It
// reports false if the process crashed.
func (h *harness) stormHold(ctx context.Context, pr *proc, l lockstep.Lock) bool {
	h.acquired(pr, l)
	for range workSteps {
		select {
		case <-l.Lost():
		default:
			h.work(pr, l)
			if pr.sp.Clock().Sleep(ctx, stormWorkStep) != nil {
				return false // crashed while holding
			}
			continue
		}
		break
	}
	h.releasing(pr)
	_ = l.Unlock(context.WithoutCancel(ctx))
	h.releaseDone(l)
	return true
}

// Honest waiters acquire within livenessBound, bypassed at most bypassBound
// times, while one process arrives every Poll/4 and another with varying
// patience, their Locks cancelled each time.
func TestStormFleet_HonestWaitersAcquireThroughArrivalStorm(t *testing.T) {
	checkFleet(t, "new+storm")
}
