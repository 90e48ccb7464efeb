package lockd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strconv"
	"sync"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// identity is seed 003's effective identifier: the owner of the locks its
// sessions take. Every session starts with an identity of its own; SetToken
// makes a session join another's. The locks stay the identity's, with
// their handles, until one of its sessions unlocks them or the last of its
// sessions leaves it, which releases them.
//
// Locking order: Server.idMu, then identity.mu, then session.mu. Membership
// (members, session.ident, Server.tokens) changes only under Server.idMu.
type identity struct {
	name  string     // public: "i-<hex>", shown by DescribeSession
	token string     // secret: "lkt1.<lockd instance>.<hex>", GetToken's
	owner *Principal // the principal of the session that opened it
	// unit is the identity's unit of work on the Locker (lockstep.Unit):
	// its acquisitions are reentrant, UnlockAll releases them, and they are
	// the holdings a deadlock detector sees. Nil if the Locker is not a
	// lockstep.UnitLocker: acquisitions are then the Locker's own.
	unit lockstep.Unit

	mu      sync.Mutex
	members map[*session]struct{}
	locks   map[string]*handle // by handle id
	next    uint64             // handle ids issued
	ended   bool               // its last session left; its locks released
	// movable: GetToken handed out a peer token of it, so its client can
	// move its sessions to another lockd (Server.Close drains them).
	movable bool

	watch sync.WaitGroup // the lost-lease watchers of its handles
}

// tokenVersion starts every token; the lockd instance and a 128-bit secret
// follow.
const tokenVersion = "lkt1"

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// newIdentity returns the identity of a new session of pr, on the lockd
// instance inst, with a unit of work of its own on locker.
func newIdentity(inst string, pr *Principal, locker lockstep.GroupLocker) *identity {
	id := &identity{name: "i-" + randomHex(8), token: tokenVersion + "." + inst + "." + randomHex(16), owner: pr,
		members: map[*session]struct{}{}, locks: map[string]*handle{}}
	if ul, ok := locker.(lockstep.UnitLocker); ok {
		id.unit = ul.Unit("")
	}
	return id
}

// takers is what acquires for an identity: its unit of work, or the Locker.
type takers interface {
	Lock(ctx context.Context, id string) (lockstep.Lock, error)
	TryLock(ctx context.Context, id string) (lockstep.Lock, error)
	LockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error)
	TryLockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error)
}

// taker returns what takes the identity's locks, showing comment in
// deadlock reports: its unit of work, or, without one, locker itself.
func (id *identity) taker(locker lockstep.GroupLocker, comment string) takers {
	switch {
	case id.unit == nil:
		return locker
	case comment != "":
		return id.unit.Commented(comment)
	}
	return id.unit
}

// add records a lock a Lock of ss returned and starts watching its lease;
// false when ss or the identity ended while the lock was being taken (the
// caller then releases it).
func (id *identity) add(ss *session, l lockstep.Lock, items []*pb.LockItem, log *slog.Logger) (*handle, bool) {
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.ended || !ss.isLive() {
		return nil, false
	}
	id.next++
	h := &handle{id: "l-" + strconv.FormatUint(id.next, 10), items: items, lock: l, stop: make(chan struct{})}
	if f, ok := l.(lockstep.Fenced); ok {
		h.token = f.Token()
	}
	// Granted by reentrancy: every member was one the identity already
	// held, only counted (the library's lockstep.Reentrant says so).
	h.reentrant = lockstep.IsReentrant(l)
	id.locks[h.id] = h
	// Added while not ended, under mu: the release of the last member,
	// which precedes every Wait, cannot have run yet.
	id.watch.Add(1)
	go id.watchLease(h, log)
	return h, true
}

// watchLease reports the handle's loss, if its lease is lost before the
// identity lets go of it.
func (id *identity) watchLease(h *handle, log *slog.Logger) {
	defer id.watch.Done()
	select {
	case <-h.lock.Lost():
		if id.lose(h) {
			log.Warn("lockd: lock lost", "identity", id.name, "principal", id.owner.Name, "lock", h.id, "id", h.lock.ID())
		}
	case <-h.stop:
	}
}

// lose tells every session of the identity that a handle's lease was lost;
// false if the handle was already let go.
func (id *identity) lose(h *handle) bool {
	id.mu.Lock()
	defer id.mu.Unlock()
	if _, ok := id.locks[h.id]; !ok || id.ended {
		return false
	}
	for ss := range id.members {
		ss.noteLost(h.id)
	}
	return true
}

// get returns the handle id names.
func (id *identity) get(handleID string) (*handle, bool) {
	id.mu.Lock()
	defer id.mu.Unlock()
	h, ok := id.locks[handleID]
	return h, ok
}

// remove forgets a released handle.
func (id *identity) remove(h *handle) {
	id.mu.Lock()
	delete(id.locks, h.id)
	id.mu.Unlock()
	h.release()
}

// handles returns the identity's handles in the order Lock returned them.
func (id *identity) handles() []*handle {
	id.mu.Lock()
	hs := make([]*handle, 0, len(id.locks))
	for _, h := range id.locks {
		hs = append(hs, h)
	}
	id.mu.Unlock()
	sortHandles(hs)
	return hs
}

// held renders the identity's locks, and counts its sessions.
func (id *identity) held() ([]*pb.HeldLock, int) {
	id.mu.Lock()
	defer id.mu.Unlock()
	out := make([]*pb.HeldLock, 0, len(id.locks))
	for _, h := range id.locks {
		out = append(out, h.proto())
	}
	sortHeld(out)
	return out, len(id.members)
}

// leave removes ss from the identity; s.idMu is held. If ss was the last
// session, the identity ends and leave returns its handles, to release
// (lost to ss when lost is set), and true.
func (id *identity) leave(ss *session, lost bool) ([]*handle, bool) {
	id.mu.Lock()
	defer id.mu.Unlock()
	delete(id.members, ss)
	if len(id.members) > 0 {
		return nil, false
	}
	id.ended = true
	hs := make([]*handle, 0, len(id.locks))
	for _, h := range id.locks {
		hs = append(hs, h)
	}
	sortHandles(hs)
	id.locks = map[string]*handle{}
	if lost {
		ss.mu.Lock()
		for _, h := range hs {
			ss.lost = append(ss.lost, h.id)
		}
		ss.mu.Unlock()
	}
	return hs, true
}
