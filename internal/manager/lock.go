package manager

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// Lock is what Acquire returns: the members of one plan held as one
// lockstep.Lock, with one loss signal and one Unlock. It implements
// lockstep.Grouped. Safe for concurrent use.
//
// A Lock of exactly one member whose lock is lockstep.Fenced is returned as
// a *FencedLock, which is Fenced with that member's token. A group of
// several members (hierarchical ids included) is not Fenced: a token orders
// the successive owners of one id, and the members' tokens have no common
// order, while under a hierarchy a holder of an ancestor may write below it
// without taking, or advancing, the descendant's token. A resource that
// needs fencing takes a flat lock of its own id.
type Lock struct {
	m      *Manager
	holder any // the reentrancy holder, or nil (UnlockAll)
	// reentrant: every member was one the holder already held, only
	// counted (Reentrant). Set before the Lock is returned.
	reentrant bool
	id        string
	plan      []lockstep.Request
	members   []*member
	loss      *held.Loss

	// stop ends the watcher goroutine of members without a *held.Loss;
	// done is closed when it has returned. Both nil without one.
	stop, done chan struct{}

	// mu is held for a whole Unlock, so concurrent calls serialize.
	mu       lifecycle.Mutex
	stopped  bool        // the first Unlock ran: the loss forwarding is undone
	ending   atomic.Bool // set as the first Unlock begins, read without mu (ValidFor)
	state    []heldState // per member, under mu
	released bool        // every member released: later calls return nil
}

// heldState is where a group's Unlock stands with one member.
type heldState uint8

const (
	refHeld   heldState = iota // the group still holds its reference
	unlockDue                  // the reference was the last: mb.real.Unlock is owed (again, after a failure)
	refDone                    // nothing left to do
)

// FencedLock is a Lock of one member that is lockstep.Fenced.
type FencedLock struct{ *Lock }

// Token returns the member's fencing token.
func (f FencedLock) Token() int64 { return f.members[0].real.(lockstep.Fenced).Token() }

var (
	_ lockstep.Lock      = (*Lock)(nil)
	_ lockstep.Grouped   = (*Lock)(nil)
	_ lockstep.Reentrant = (*Lock)(nil)
	_ lockstep.Reentrant = FencedLock{}
	_ lockstep.Fenced    = FencedLock{}
)

// newLock wraps members, all held, into a group Lock and starts forwarding
// their losses; reentrant says every member was only counted (Reentrant).
func newLock(m *Manager, id string, plan []lockstep.Request, members []*member, holder any, reentrant bool) lockstep.Lock {
	g := &Lock{m: m, holder: holder, id: id, plan: plan, members: members, loss: held.NewLoss(), state: make([]heldState, len(members)),
		reentrant: reentrant}
	if holder != nil {
		m.track(g)
	}
	var watch []<-chan struct{}
	for _, mb := range members {
		g.loss.Watch(mb.remaining)
		if mb.hasLoss {
			mb.subscribe(g.loss)
		} else {
			watch = append(watch, mb.real.Lost())
		}
	}
	if len(watch) > 0 {
		g.stop, g.done = make(chan struct{}), make(chan struct{})
		go g.watch(watch)
	}
	if len(members) == 1 {
		if _, ok := members[0].real.(lockstep.Fenced); ok {
			return FencedLock{g}
		}
	}
	return g
}

// watch fires the group's loss when any of lost closes, until stop: the
// fallback for members whose lock has no *held.Loss to forward from.
func (g *Lock) watch(lost []<-chan struct{}) {
	defer close(g.done)
	cases := make([]reflect.SelectCase, 0, len(lost)+1)
	cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(g.stop)})
	for _, c := range lost {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c)})
	}
	if i, _, _ := reflect.Select(cases); i > 0 {
		g.loss.Fire()
	}
}

// ID returns the ids the caller asked for, joined by ", ": for a group of
// one request, exactly its id.
func (g *Lock) ID() string { return g.id }

// Reentrant reports whether the acquisition that returned g took nothing
// (lockstep.Reentrant): for a unit of work (Who.Holder) every member
// (intention locks on ancestors included) was one the holder already held
// in a covering access, and was only counted. A first take of "rx/2" beside
// a held "rx/1" shares the intention lock on "rx" but takes "rx/2": not
// reentrant.
func (g *Lock) Reentrant() bool { return g.reentrant }

// Owner returns the first member's owner.
func (g *Lock) Owner() string { return g.members[0].real.Owner() }

// Mode returns the first member's mode.
func (g *Lock) Mode() lockstep.Mode { return g.members[0].real.Mode() }

// Members returns the members held, in canonical order, intention locks
// included; the slice is the caller's.
func (g *Lock) Members() []lockstep.Request { return append([]lockstep.Request(nil), g.plan...) }

// MemberLocks returns the locks of the members held, in the order of
// Members: each member's own Lock, with its owner, mode and lease. The
// model checks (propertytests) judge every member's lease and owner cell
// by them, not only the first member's, which Owner and Mode show. The
// slice is the caller's; the locks are the group's, to look at, never to
// unlock.
func (g *Lock) MemberLocks() []lockstep.Lock {
	out := make([]lockstep.Lock, len(g.members))
	for i, mb := range g.members {
		out[i] = mb.real
	}
	return out
}

// Lost is closed once any member's lease is lost. It runs every member's
// own deadline check first (each member's Lost, without blocking), so a
// deadline passed is seen at once, before any goroutine has noticed.
func (g *Lock) Lost() <-chan struct{} { return g.loss.C() }

// Loss returns the group's loss signal, so that a group can be a member of
// another one, or a wrapper add a source of loss.
func (g *Lock) Loss() *held.Loss { return g.loss }

// Unlock follows lockstep.Lock's contract: concurrent calls serialize; the
// first stops the loss forwarding and releases the members, last in
// canonical order first; a member whose Unlock failed is retried by the
// next call, the others are not; after every member was released, calls
// return nil at once. After a loss the first call returns an error wrapping
// lockstep.ErrLost (the member's own, or the group's if no member reported
// it), joined with the members' errors.
//
// Under reentrancy a member shared with other groups of the holder is only
// counted down; its lock is unlocked by the group that held the last
// reference.
func (g *Lock) Unlock(ctx context.Context) error {
	if err := g.mu.Lock(ctx, g.m.clock); err != nil {
		return fmt.Errorf("lockstep: unlock %q: waiting for another Unlock: %w", g.id, err)
	}
	defer g.mu.Unlock()
	if g.released {
		return nil
	}
	lost := false
	if !g.stopped {
		g.ending.Store(true)
		g.stopped = true
		if g.stop != nil {
			close(g.stop)
			<-g.done
		}
		lost = g.loss.Fired()
		for _, mb := range g.members {
			if mb.hasLoss {
				mb.unsubscribe(g.loss)
			}
		}
	}
	var errs []error
	for i := len(g.members) - 1; i >= 0; i-- {
		errs = append(errs, g.release(ctx, i)) // errors.Join drops the nils
	}
	err := errors.Join(errs...)
	if err == nil {
		g.released = true
		if g.holder != nil {
			g.m.untrack(g)
		}
	}
	if lost && !errors.Is(err, lockstep.ErrLost) {
		err = errors.Join(fmt.Errorf("lockstep: unlock %q: a member's lease was lost: %w", g.id, lockstep.ErrLost), err)
	}
	return err
}

// release moves member i on: gives up the group's reference, and unlocks
// the member's lock if that was the last one (or an earlier try failed).
func (g *Lock) release(ctx context.Context, i int) error {
	mb := g.members[i]
	if g.state[i] == refHeld {
		if g.m.drop(mb) {
			g.state[i] = unlockDue
		} else {
			g.state[i] = refDone
		}
	}
	if g.state[i] != unlockDue {
		return nil
	}
	if err := g.m.unlockMember(ctx, mb); err != nil {
		return err
	}
	g.state[i] = refDone
	return nil
}
