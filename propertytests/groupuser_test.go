package propertytests

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model/sim"
)

// The user of the lock-manager fleets (groupfleet_test.go): a process that
// takes lock groups over a small hierarchical id space, in random accesses,
// works while Lost() is open, and releases. Its operations are drawn by
// the chooser of the random-phase action that wakes it (rapid's, the
// sweep's, or a replayed script's), so a script still says everything a
// run did; in the quiet phase each process repeats, in turn, the
// operations it drew (the default operation if it drew none).

// groupSep is the fleets' hierarchy separator, and groupIDs their id space:
// a root with two children, a grandchild, and an unrelated root.
const groupSep = "/"

var groupIDs = []string{"a", "a/b", "a/c", "a/b/d", "e"}

// maskIDs is the id space of the mask fleet: groupIDs' hierarchy with two
// masks, "a/*" (every child of "a": "a/b", "a/c", and children never named)
// and "a/b/*".
var maskIDs = []string{"a", "a/b", "a/c", "a/b/d", "a/*", "a/b/*"}

// accessSlots weight the accesses drawn: X and S common, the intention
// modes rarer. Exclusive is slot 0, where shrinking goes.
var accessSlots = []lockstep.Access{
	lockstep.Exclusive, lockstep.Shared, lockstep.Exclusive, lockstep.Shared, lockstep.Exclusive, lockstep.Shared,
	lockstep.IntentShared, lockstep.IntentExclusive, lockstep.SharedIntentExclusive,
}

// flagSlots weight the lockstep.Flags a flags fleet draws per request:
// none (slot 0, where shrinking goes), every flag that holds of the id
// (fitFlags: Flat and NoMask on a root, so flat and hierarchical queries
// of one id meet), or Flat or NoMask whatever the id, which a path or a
// mask refuses.
const (
	flagsNone = iota
	flagsFit
	flagsFlat
	flagsNoMask
)

var flagSlots = []int{flagsNone, flagsNone, flagsFit, flagsFit, flagsFlat, flagsNoMask}

// drawFlags draws the flags of a request of id under sep (flagSlots).
func drawFlags(ch sim.Chooser, id, sep string) lockstep.Flags {
	switch flagSlots[ch.Choose("flags", len(flagSlots))] {
	case flagsFit:
		return fitFlags(id, sep)
	case flagsFlat:
		return lockstep.Flat
	case flagsNoMask:
		return lockstep.NoMask
	}
	return 0
}

// fitFlags returns every flag that holds of id under sep: Flat unless id
// has ancestors (a mask of one name has none), NoMask unless it is a mask.
func fitFlags(id, sep string) lockstep.Flags {
	var f lockstep.Flags
	if len(ancestors(strings.TrimSuffix(id, sep+maskMark), sep)) == 0 {
		f |= lockstep.Flat
	}
	if !isMask(id, sep) {
		f |= lockstep.NoMask
	}
	return f
}

// call is how an operation acquires.
type call int

const (
	callLockGroup    call = iota // LockGroup: blocks until every request is held
	callTryLockGroup             // TryLockGroup: fails at the first busy member
	callLock                     // Lock(ctx, id): exclusive, ancestors in IX through the Separator
)

var callNames = [...]string{"LockGroup", "TryLockGroup", "Lock"}

// callSlots weight the calls drawn.
var callSlots = []call{callLockGroup, callLockGroup, callLockGroup, callLockGroup, callTryLockGroup, callLock}

// cancelSlots are the waits after which a blocking call's ctx is cancelled
// (0: never): before the first read, between polls, and beyond Renew.
var cancelSlots = []time.Duration{0, 0, 0, 0, 0, 3 * poll / 4, 9 * poll / 4, 19 * poll / 4}

// groupOp is one operation of a lock-manager user.
type groupOp struct {
	call   call
	reqs   []lockstep.Request
	cancel time.Duration // ctx cancelled after this (blocking calls); 0: never
}

func (o groupOp) String() string {
	s := make([]string, len(o.reqs))
	for i, r := range o.reqs {
		s[i] = r.String()
	}
	out := callNames[o.call] + "(" + strings.Join(s, ", ") + ")"
	if o.cancel > 0 {
		out += fmt.Sprintf(" cancelled after %v", o.cancel)
	}
	return out
}

// defaultOp is what every choice 0 draws: LockGroup of "a" in X.
var defaultOp = groupOp{call: callLockGroup, reqs: []lockstep.Request{{ID: groupIDs[0], Access: lockstep.Exclusive}}}

// drawOp draws an operation: 1–3 requests over the spec's ids in weighted
// accesses (an id may come twice: the group joins them), with flags if the
// spec asks, how to call, and when to cancel.
func drawOp(ch sim.Chooser, spec groupSpec) groupOp {
	var op groupOp
	ids := spec.idSpace()
	n := 1 + ch.Choose("group size", 3)
	for range n {
		id := ids[ch.Choose("id", len(ids))]
		r := lockstep.Request{ID: id, Access: accessSlots[ch.Choose("access", len(accessSlots))]}
		if spec.flags {
			r.Flags = drawFlags(ch, id, spec.sep)
		}
		op.reqs = append(op.reqs, r)
	}
	op.call = callSlots[ch.Choose("call", len(callSlots))]
	if op.call == callLock {
		op.reqs = []lockstep.Request{{ID: op.reqs[0].ID, Access: lockstep.Exclusive}}
	}
	if op.call != callTryLockGroup {
		op.cancel = cancelSlots[ch.Choose("cancel", len(cancelSlots))]
	}
	return op
}

// nextOp returns pr's next operation: drawn from the chooser of the action
// running now, if any, and remembered; otherwise (the quiet phase) the next
// of those pr drew, in turn. A draw that panics — rapid's way of saying
// its input ran out while shrinking — panics again on the test's goroutine
// (act), not on this simulated one.
func (h *harness) nextOp(pr *proc) groupOp {
	h.mu.Lock()
	defer h.mu.Unlock()
	g := h.grp
	if h.ch != nil && h.drawPanic == nil {
		op, p := drawCatching(h.ch, g.spec)
		if p == nil {
			g.history[pr] = append(g.history[pr], op)
			return op
		}
		h.drawPanic = p
	}
	hist := g.history[pr]
	if len(hist) == 0 {
		return defaultOp
	}
	op := hist[g.next[pr]%len(hist)]
	g.next[pr]++
	return op
}

func drawCatching(ch sim.Chooser, spec groupSpec) (op groupOp, caught any) {
	defer func() { caught = recover() }()
	return drawOp(ch, spec), nil
}

// groupUser is the behaviour of a lock-manager process: think, draw an
// operation, call it; if it holds, work workSteps steps checking Lost()
// before each, as harness.user does, and release.
func groupUser(h *harness, ctx context.Context, pr *proc) {
	gl, ok := pr.locker.(lockstep.GroupLocker)
	if !ok {
		h.mu.Lock()
		h.violate("state: %s's locker %T is not a lockstep.GroupLocker", pr.sp.Name, pr.locker)
		h.mu.Unlock()
		return
	}
	clk := pr.sp.Clock()
	for clk.Sleep(ctx, think) == nil {
		op := h.nextOp(pr)
		l, err := h.callOp(ctx, pr, gl, op)
		if err != nil {
			continue
		}
		h.groupAcquired(pr, op, l)
		if !h.workAndRelease(ctx, pr, l, func() { h.groupReleasing(pr) }) {
			return // crashed while holding
		}
	}
}

// callOp makes op's call with the run's planted defects; a blocking call
// whose op cancels has its ctx cancelled by a goroutine of the process
// after op.cancel, which callOp waits for before it returns.
func (h *harness) callOp(ctx context.Context, pr *proc, gl lockstep.GroupLocker, op groupOp) (lockstep.Lock, error) {
	lockCtx := ctx
	h.groupCalling(pr, op)
	if op.call == callTryLockGroup {
		l, err := gl.TryLockGroup(lockCtx, op.reqs...)
		if err != nil {
			h.groupCallFailed(pr, op, err)
		} else {
			h.checkReturnedWhole(pr, op, l)
		}
		return l, err
	}
	cctx, cancel := context.WithCancel(lockCtx)
	defer cancel()
	var done chan struct{}
	if op.cancel > 0 {
		done = make(chan struct{})
		pr.sp.Go(func(context.Context) {
			defer close(done)
			if pr.sp.Clock().Sleep(cctx, op.cancel) == nil {
				cancel()
			}
		})
	}
	var l lockstep.Lock
	var err error
	if op.call == callLock {
		l, err = gl.Lock(cctx, op.reqs[0].ID)
	} else {
		l, err = gl.LockGroup(cctx, op.reqs...)
	}
	if err == nil {
		h.checkReturnedWhole(pr, op, l)
	}
	cancel() // the lease does not depend on ctx; this ends the timer
	if done != nil {
		<-done
	}
	if err != nil {
		h.groupCallFailed(pr, op, err)
	}
	return l, err
}
