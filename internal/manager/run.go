package manager

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/deadlock"
)

// Run is one acquisition in progress: a Locker's Lock, TryLock, LockGroup
// or TryLockGroup. The Manager plans it and keeps what lies between the
// members (the reentrancy registry, the deadlock wait, the rollback of a
// partial group); the Locker takes each member itself, with its own
// acquisition of one id, in the loop doc.go shows, so the Manager never
// calls the Locker. A Locker that takes a member in an access stronger
// than asked says so with Step.Take.
//
// A Run is one goroutine's, and is not reused.
type Run struct {
	m      *Manager
	ctx    context.Context
	who    Who
	try    bool
	direct bool // one flat request without a holder: the member's lock is the result
	reqs   []lockstep.Request
	plan   []lockstep.Request
	w      waiter

	members []*member
	counted []*member // under reentrancy: the members the holder held before, counted, not taken
	i       int       // plan index of the member being taken, or next
	taking  bool      // between Next's true and Done
	step    Step
	took    lockstep.Access // the access the step's take really takes (Step.Take); the asked one by default
	pending *member         // under reentrancy: the registry entry the step fills
	wait    *deadlock.Wait  // the step's published wait; nil without one
	over    bool
	res     lockstep.Lock
	err     error
}

// Step is one member for the Locker to take: its acquisition of ID in
// Access (with Try: one attempt, failing with an error wrapping
// lockstep.ErrLocked), under Ctx. The Locker's acquisition must return an
// error for which errors.Is(err, ctx.Err()) holds, having left nothing
// behind, when Ctx ends first.
type Step struct {
	ID     string
	Access lockstep.Access
	Try    bool
	ctx    context.Context
	run    *Run
}

// Ctx is the context the member is taken under: the caller's or, under
// deadlock detection, one the detector cancels when this wait is the victim
// of a cycle.
func (s Step) Ctx() context.Context { return s.ctx }

// Take says that the Locker's take of this member takes it in access a,
// stronger than the Access asked: the legacy and combined Lockers take
// every member exclusively, a migration Locker in modes legacy and
// combined too, once its acquisition has chosen its mode. From then on the
// step's published wait asks for a, and the member, once taken, is listed
// among its holder's holdings in a (docs/algorithms.md, section 8.5: a
// cycle that exists only because a Shared request is taken exclusively is
// then seen). The call flows down: the Locker calls it from its own take,
// on the Run's goroutine, before Done. An a that does not cover Access is a
// Locker's bug, and panics.
func (s Step) Take(a lockstep.Access) {
	r := s.run
	if r == nil || !r.taking {
		panic("manager: Step.Take outside its step")
	}
	if !a.Valid() || !a.Covers(s.Access) {
		panic(fmt.Sprintf("manager: Step.Take(%v) for a request of %v: a take is never weaker than the request", a, s.Access))
	}
	if r.m.knobs.PublishAskedAccess || a == r.took {
		return
	}
	r.took = a
	if r.wait != nil {
		r.wait.Takes(a)
	}
}

// Who is who an acquisition is made for: a unit of work (Holder, nil for
// none: the call alone) and its comment for deadlock reports. A Locker's
// Unit passes its own; Lock, TryLock, LockGroup and TryLockGroup on the
// Locker pass none.
type Who struct {
	// Holder names the unit of work, compared with ==: its acquisitions
	// are reentrant (doc.go, "Reentrancy") and UnlockAll releases them.
	Holder any
	// Comment is shown in the DeadlockError of a cycle the acquisition's
	// wait is part of (seed 003's lock($comment)).
	Comment string
}

// Start begins a Locker's acquisition of reqs for who (with try: TryLock's
// semantics for each member). A group of one request with flat ids and no
// reentrancy holder is that request's lock itself, as the Locker's
// own acquisition returns it (it has no Members; its ID is the id): the
// same store requests and the same lock value as before groups existed, so
// the uncontended exclusive Lock + Unlock of the queue lock stays 3
// requests. Anything else is a group (StartGroup).
func (m *Manager) Start(ctx context.Context, who Who, reqs []lockstep.Request, try bool) *Run {
	if len(reqs) == 1 && m.sep == "" && who.Holder == nil && reqs[0].Access.Valid() && reqs[0].Flags.Valid() {
		return &Run{m: m, ctx: ctx, who: who, try: try, direct: true, reqs: reqs,
			plan: []lockstep.Request{{ID: reqs[0].ID, Access: reqs[0].Access}}}
	}
	return m.StartGroup(ctx, who, reqs, try)
}

// StartGroup begins the acquisition of the members of m.Plan(reqs), one
// by one, in that order, as one group Lock. On any error — ctx ending, a
// busy member under try, a store error, an upgrade under reentrancy, a
// deadlock — the Run releases what it took, last taken first, with
// context.WithoutCancel(ctx) so that the cleanup runs after a
// cancellation, and Result returns an error naming the member that stopped
// it and wrapping the cause (errors.Is sees ctx.Err(), lockstep.ErrLocked,
// lockstep.ErrUpgrade, ...), joined with any release error. A release that
// fails is left to the Locker's Close and the cells' TTL. A member lost
// while the members after it were taken fails the run the same way, with
// an error wrapping lockstep.ErrLost: a group is returned only whole
// (doc.go, "Losing a member").
//
// With a who.Holder, a member the holder already holds in an access that
// Covers the request is counted, with no step; one it holds in a weaker
// access fails the run with an error wrapping lockstep.ErrUpgrade. The
// holder must be comparable (a Unit's is a pointer).
func (m *Manager) StartGroup(ctx context.Context, who Who, reqs []lockstep.Request, try bool) *Run {
	r := &Run{m: m, ctx: ctx, who: who, try: try, reqs: reqs}
	plan, err := m.Plan(reqs)
	if err != nil {
		return r.end(nil, err)
	}
	holder, reentrant := who.Holder, who.Holder != nil
	r.plan, r.members = plan, make([]*member, 0, len(plan))
	r.w = waiter{identity: holder, reentrant: reentrant, try: try}
	if !reentrant {
		r.w.identity = &call{}
		r.w.taken = func() []*member { return r.members }
	}
	return r
}

// end ends r with its result.
func (r *Run) end(l lockstep.Lock, err error) *Run {
	r.over, r.res, r.err = true, l, err
	return r
}

// Next reports whether the Locker must take a member now (Step says
// which, Done takes its outcome). Members a reentrancy holder already
// holds are counted here, with no step. False means the run is over:
// Result has its outcome.
func (r *Run) Next() bool {
	if r.taking {
		panic("manager: Run.Next before Done")
	}
	if r.over {
		return false
	}
	if r.direct {
		r.begin(r.plan[0], nil)
		return true
	}
	for r.i < len(r.plan) {
		q := r.plan[r.i]
		if !r.w.reentrant {
			r.begin(q, nil)
			return true
		}
		mb, pending, err := r.m.enterReentrant(r.ctx, r.w, q)
		if lh := (*lostHolding)(nil); errors.As(err, &lh) {
			r.failLostHolding(lh)
			return false
		}
		if err != nil {
			r.fail(err)
			return false
		}
		if pending == nil {
			r.members = append(r.members, mb)
			r.counted = append(r.counted, mb)
			r.i++
			continue
		}
		r.begin(q, pending)
		return true
	}
	r.complete()
	return false
}

// begin makes q the step. A blocking take of a group's member, under
// deadlock detection, runs as a published wait of the detector (wait.go).
func (r *Run) begin(q lockstep.Request, pending *member) {
	ctx := r.ctx
	if r.m.det != nil && !r.try && !r.direct {
		w := r.w
		r.wait, ctx = r.m.det.Begin(ctx, w.identity, r.who.Comment, q, func() []deadlock.Hold { return r.m.holds(w) })
	}
	r.step = Step{ID: q.ID, Access: q.Access, Try: r.try, ctx: ctx, run: r}
	r.pending, r.taking, r.took = pending, true, q.Access
}

// Step returns the member to take now. Only after Next returned true.
func (r *Run) Step() Step {
	if !r.taking {
		panic("manager: Run.Step without a step")
	}
	return r.step
}

// Done takes the outcome of the step: the Locker's acquisition's lock, or
// its error (then it holds nothing). Under deadlock detection it first ends
// the step's wait, which deletes its record and turns the error of a
// victim into a *lockstep.DeadlockError; an error fails the run.
func (r *Run) Done(l lockstep.Lock, err error) {
	if !r.taking {
		panic("manager: Run.Done without a step")
	}
	r.taking = false
	if r.direct {
		r.end(l, err)
		return
	}
	if r.wait != nil {
		l, err = r.wait.Finish(l, err)
		r.wait = nil
	}
	var mb *member
	switch {
	case r.pending != nil:
		r.pending.takenIn(r.took) // before settleReentrant publishes the entry under m.mu
		r.pending.handle = r.handleOwner(l)
		mb, err = r.m.settleReentrant(r.pending, l, err)
		r.pending = nil
	case err == nil:
		mb = &member{access: r.plan[r.i].Access, handle: r.handleOwner(l)}
		mb.takenIn(r.took)
		mb.setReal(l)
	}
	if err != nil {
		r.fail(err)
		return
	}
	r.members = append(r.members, mb)
	r.i++
}

// handleOwner returns the Owner() the run's handle will have once the
// member the step took (as l) is among its members: its first member's.
func (r *Run) handleOwner(l lockstep.Lock) string {
	if len(r.members) > 0 {
		return r.members[0].real.Owner()
	}
	if l == nil {
		return ""
	}
	return l.Owner()
}

// fail ends the run with err, the cause that stopped member r.i, having
// released what the run took.
func (r *Run) fail(err error) {
	err = &MemberError{Member: r.plan[r.i], err: fmt.Errorf("lockstep: lock group [%s]: member %d of %d, %s, not taken (%d taken before it released): %w",
		joinRequests(r.plan), r.i+1, len(r.plan), r.plan[r.i], len(r.members), err)}
	r.end(nil, errors.Join(err, r.m.abandon(context.WithoutCancel(r.ctx), r.members)))
}

// MemberError is the error of a group Run that one member stopped: the
// member not taken (ErrLocked, ctx's error, a store error, ErrUpgrade, a
// deadlock), or the member lost while the later ones were taken (ErrLost).
// Its message names the member and the group; it wraps the cause. Outside
// the module it is reached with errors.As and an interface target,
// interface{ StoppedBy() lockstep.Request } (lockd names the member in its
// LOCKED detail).
type MemberError struct {
	Member lockstep.Request // the member, which may be an intention lock on an ancestor of an id asked
	err    error
}

func (e *MemberError) Error() string { return e.err.Error() }

// Unwrap returns the cause, inside the message's wrapping.
func (e *MemberError) Unwrap() error { return e.err }

// StoppedBy returns the member that stopped the run.
func (e *MemberError) StoppedBy() lockstep.Request { return e.Member }

// complete ends a run whose members are all taken: the group, unless a
// member was lost meanwhile.
func (r *Run) complete() {
	m := r.m
	if i := firstLost(r.members); i >= 0 && !m.knobs.GroupReturnsLostMember {
		if mb := r.members[i]; slices.Contains(r.counted, mb) { // lost since it was counted
			r.i = i
			r.failLostHolding(&lostHolding{id: mb.real.ID(), owner: mb.handleOwner()})
			return
		}
		err := &MemberError{Member: r.plan[i], err: fmt.Errorf("lockstep: lock group [%s]: member %d of %d, %s, was lost while the members after it were taken "+
			"(its lease lapsed: the store or the network stalled its renewals); the group released what it took, so nothing is held: take the group again: %w",
			joinRequests(r.plan), i+1, len(r.plan), r.plan[i], lockstep.ErrLost)}
		r.end(nil, errors.Join(err, m.abandon(context.WithoutCancel(r.ctx), r.members)))
		return
	}
	holder := r.w.identity
	if !r.w.reentrant {
		holder = nil
	}
	r.end(newLock(m, callerID(r.reqs), r.plan, r.members, holder, r.w.reentrant && len(r.counted) == len(r.plan)), nil)
}

// Result returns the run's outcome once Next returned false: the lock
// (for a group, a *Lock or a *FencedLock) or the error.
func (r *Run) Result() (lockstep.Lock, error) {
	if !r.over {
		panic("manager: Run.Result before the run ended")
	}
	return r.res, r.err
}
