// Turns (turn.go) queue the goroutines of one process that contend for the same
// lock id, first come first served, so that only the ones whose accesses are
// compatible with each other talk to the store about that id at one time
// (docs/algorithms.md, section 4.7): for exclusive requests, one at
// a time. The others wait in-process without reading or writing anything
// remotely: a hot id then costs the cluster one contender per process instead
// of one per goroutine, and in-process order is exactly arrival order.
//
// A key's state lives only while its turn is held or awaited: the last
// Leave (or a cancelled last waiter) forgets the key, and the map itself
// once no key is left, so a process locking ever new ids keeps no memory of
// the ones it released.

package lifecycle

import (
	"context"
	"slices"
	"sync"

	"github.com/lockstep-go/lockstep"
)

// Turns hands out, per key, turns in FIFO order: a request is granted when
// its access is compatible (lockstep.Access.Compatible) with every turn held
// and every earlier request still waiting, so compatible requests (readers,
// intention locks on a common ancestor) hold turns at once and an
// incompatible one waits for them, while a later compatible request does not
// pass an earlier waiting one. Each turn held has a slot, the smallest number
// no other holder of the key has: the queue lock names the owner cell of
// the acquisition by it (internal/layout, SlotColumn), so one Locker writes
// as many owner columns of an id as it holds turns on it at once, and an
// exclusive turn, alone by definition, always has slot 0. The zero value is
// ready to use; it is safe for concurrent use.
type Turns struct {
	// Clock, when set, is what a Take that waited resumes through
	// (internal/Resumed), so that a simulator runs it alone.
	Clock lockstep.Clock

	mu   sync.Mutex
	keys map[string]*line
}

type line struct {
	holders []holder
	waiters []*waiter
}

type holder struct {
	access lockstep.Access
	slot   int
	holds  bool // Hold: the turn's owner holds the lock, not only contends for it
}

type waiter struct {
	access lockstep.Access
	ready  chan struct{} // closed when the turn is granted
	slot   int           // set when granted
}

// Take waits for a turn on key in access a. On success the caller holds the
// turn, with the slot returned, until Leave. If ctx ends first, Take returns
// ctx.Err() and holds nothing: a turn granted concurrently with the
// cancellation is passed on.
func (t *Turns) Take(ctx context.Context, key string, a lockstep.Access) (int, error) {
	t.mu.Lock()
	l := t.lineLocked(key)
	if len(l.waiters) == 0 && l.admits(a, 0) {
		slot := l.grant(a)
		t.mu.Unlock()
		return slot, nil
	}
	w := &waiter{access: a, ready: make(chan struct{})}
	l.waiters = append(l.waiters, w)
	t.mu.Unlock()

	select {
	case <-w.ready:
		Resumed(ctx, t.Clock)
		return w.slot, nil
	case <-ctx.Done():
		Resumed(ctx, t.Clock)
		t.mu.Lock()
		defer t.mu.Unlock()
		select {
		case <-w.ready: // granted while we were giving up: pass it on
			t.leaveLocked(key, l, w.slot)
		default:
			l.waiters = slices.DeleteFunc(l.waiters, func(x *waiter) bool { return x == w })
			t.passLocked(key, l) // those behind us may now be admitted
		}
		return 0, ctx.Err()
	}
}

// TryTake takes a turn on key in access a only if it is granted at once:
// nobody waits, and a is compatible with every turn held.
func (t *Turns) TryTake(key string, a lockstep.Access) (int, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.lineLocked(key)
	if len(l.waiters) > 0 || !l.admits(a, 0) {
		return 0, false
	}
	return l.grant(a), true
}

// Reserve holds slot of key, if no holder has it, until Leave(key, slot),
// in Exclusive access: no turn is granted meanwhile, whoever else holds one.
// A holder whose release failed after it left its turn takes its slot back
// so, for the moment of a retried delete of the owner cell named by that
// slot (queuelock), which no acquisition may write meanwhile.
func (t *Turns) Reserve(key string, slot int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.lineLocked(key)
	if slices.ContainsFunc(l.holders, func(h holder) bool { return h.slot == slot }) {
		return false
	}
	l.holders = append(l.holders, holder{access: lockstep.Exclusive, slot: slot})
	return true
}

// Hold records that the turn on key with the given slot now stands for a
// held lock (its owner won the lock), not only for a contender. Holding
// reports it until the turn is left.
func (t *Turns) Hold(key string, slot int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := t.keys[key]
	i := -1
	if ok {
		i = slices.IndexFunc(l.holders, func(h holder) bool { return h.slot == slot })
	}
	if i < 0 {
		panic("turn: Hold of a slot not held")
	}
	l.holders[i].holds = true
}

// Holding reports whether a turn on key in an access incompatible with a
// is held by an owner that holds the lock (Hold); turns of contenders
// still waiting or claiming do not count.
func (t *Turns) Holding(key string, a lockstep.Access) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := t.keys[key]
	return ok && slices.ContainsFunc(l.holders, func(h holder) bool { return h.holds && !a.Compatible(h.access) })
}

// Leave gives back the turn on key with the given slot and grants the
// waiters that are now admitted. It must be called exactly once per
// successful Take or TryTake.
func (t *Turns) Leave(key string, slot int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := t.keys[key]
	if !ok {
		panic("turn: Leave of a key not held")
	}
	t.leaveLocked(key, l, slot)
}

func (t *Turns) leaveLocked(key string, l *line, slot int) {
	i := slices.IndexFunc(l.holders, func(h holder) bool { return h.slot == slot })
	if i < 0 {
		panic("turn: Leave of a slot not held")
	}
	l.holders = slices.Delete(l.holders, i, i+1)
	t.passLocked(key, l)
}

// lineLocked returns key's line, made if there is none. t.mu is held.
func (t *Turns) lineLocked(key string) *line {
	if t.keys == nil {
		t.keys = make(map[string]*line)
	}
	l := t.keys[key]
	if l == nil {
		l = &line{}
		t.keys[key] = l
	}
	return l
}

// admits reports whether a request in access a, with the first n waiters
// ahead of it, is compatible with every holder and each of those waiters.
func (l *line) admits(a lockstep.Access, n int) bool {
	for _, h := range l.holders {
		if !a.Compatible(h.access) {
			return false
		}
	}
	for _, w := range l.waiters[:n] {
		if !a.Compatible(w.access) {
			return false
		}
	}
	return true
}

// grant makes a request in access a a holder, in the smallest free slot.
func (l *line) grant(a lockstep.Access) int {
	slot := 0
	for slices.ContainsFunc(l.holders, func(h holder) bool { return h.slot == slot }) {
		slot++
	}
	l.holders = append(l.holders, holder{access: a, slot: slot})
	return slot
}

// passLocked grants, in line order, every waiter compatible with the
// holders and every waiter still ahead of it, and forgets the key once no
// one holds or awaits it.
func (t *Turns) passLocked(key string, l *line) {
	for i := 0; i < len(l.waiters); {
		w := l.waiters[i]
		if !l.admits(w.access, i) {
			i++
			continue
		}
		l.waiters = slices.Delete(l.waiters, i, i+1)
		w.slot = l.grant(w.access)
		close(w.ready)
	}
	if len(l.holders) == 0 && len(l.waiters) == 0 {
		delete(t.keys, key)
		if len(t.keys) == 0 {
			// A Go map keeps its buckets when emptied: drop it, so that a
			// burst of distinct ids leaves nothing behind once released.
			t.keys = nil
		}
	}
}

// Busy reports whether a turn on key is held or awaited.
func (t *Turns) Busy(key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, busy := t.keys[key]
	return busy
}

// Len reports how many keys are held; for tests and metrics.
func (t *Turns) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.keys)
}
