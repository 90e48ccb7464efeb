package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// algorithm names a lock implementation the bench runs.
type algorithm string

// The algorithms. The first three are this module's modes and run on every
// backend; lwt and etcd are the peers a user would pick instead, and run only
// on the real backend.
const (
	algoNew      algorithm = "new"
	algoLegacy   algorithm = "legacy"
	algoCombined algorithm = "combined"
	algoLWT      algorithm = "lwt"
	// algoLWTNaive is the LWT baseline that retries its INSERT every poll,
	// without reading first or jitter (lwt.go); algoLWT is the strong one.
	algoLWTNaive algorithm = "lwt-naive"
	algoEtcd     algorithm = "etcd"
	// algoNewWake is the new algorithm with wake-ups on release over UDP
	// (queuelock.Options.Wake); real backend only (peerswake.go).
	algoNewWake algorithm = "new-wake"
	// algoLockd is the new algorithm through a lockd (the lockd peer,
	// lockdpeer.go); algoEtcdLock is etcd's lock service, the v3lock RPCs
	// (the etcd peer). Both run in -scenario service only (service.go).
	algoLockd    algorithm = "lockd"
	algoEtcdLock algorithm = "etcd-lock"
	// algoEtcdNextRev is etcd's Mutex with its watch fixed: the Mutex's
	// queue and keys, each waiter watching its predecessor from the
	// revision after the read that found it (the etcd peer's
	// etcdnextrev.go).
	algoEtcdNextRev algorithm = "etcd-nextrev"
	// algoNewHandoff is new-wake with the handoff
	// (queuelock.Options.Handoff); real backend only (peerswake.go).
	algoNewHandoff algorithm = "new-handoff"
	// algoNewRanged is the new algorithm with intention owner cells in the
	// intention range (queuelock.Options.IntentionRange); the manager
	// scenario only (manager_world.go), on both backends.
	algoNewRanged algorithm = "new-ranged"
	// algoNewLocal is the new algorithm with local handoff
	// (queuelock.Options.LocalHandoff, lockerParams.local); the cohort
	// scenario only (cohort.go), on both backends.
	algoNewLocal algorithm = "new-local"
	// algoNewRetain is new-local with retained ownership
	// (queuelock.Options.Retain, lockerParams.retain); the cohort scenario
	// only, on both backends.
	algoNewRetain algorithm = "new-retain"
	// algoNewFenced is the new algorithm with fencing tokens, each drawn
	// after its claim won (queuelock.Options.Fencing); algoNewEvidence draws
	// each beside its claim (Options.Evidence EvidenceUse). The roundtrips
	// scenario only, on both backends.
	algoNewFenced   algorithm = "new-fenced"
	algoNewEvidence algorithm = "new-evidence"
)

// lockstepAlgorithms are the algorithms of this module, in table order.
var lockstepAlgorithms = []algorithm{algoNew, algoLegacy, algoCombined}

// realAlgorithms are every algorithm the real backend runs.
var realAlgorithms = []algorithm{algoNew, algoLegacy, algoCombined, algoLWT, algoLWTNaive, algoEtcd, algoEtcdNextRev, algoNewWake, algoNewHandoff}

// inEtcdPeer reports whether algorithm a runs in the etcd peer.
func inEtcdPeer(a algorithm) bool { return a == algoEtcd || a == algoEtcdLock || a == algoEtcdNextRev }

// joinAlgorithms is the comma-separated list of as.
func joinAlgorithms(as []algorithm) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = string(a)
	}
	return strings.Join(s, ",")
}

// parseAlgorithms parses a comma-separated list of algorithm names, keeping
// only those in allowed.
func parseAlgorithms(list string, allowed []algorithm) ([]algorithm, error) {
	var out []algorithm
	for _, s := range strings.Split(list, ",") {
		a := algorithm(strings.ToLower(strings.TrimSpace(s)))
		ok := false
		for _, b := range allowed {
			ok = ok || a == b
		}
		if !ok {
			return nil, fmt.Errorf("algorithm %q is not available here (want one of %v)", s, allowed)
		}
		out = append(out, a)
	}
	return out, nil
}

// contender is what the bench needs of a lock implementation: blocking
// acquisition of one id, a handle to release it, and a Close that releases
// whatever the implementation still holds. Every implementation the bench
// runs — this module's lockers, the LWT baseline, etcd's Mutex (in the etcd
// peer's module, etcdpeer/, which has a copy of this interface) — is adapted
// to it.
type contender interface {
	Lock(ctx context.Context, id string) (unlocker, error)
	Close(ctx context.Context) error
}

// unlocker is a held lock.
type unlocker interface {
	Unlock(ctx context.Context) error
}

// closingLocker is a lockstep.Locker with a Close, as every locker of this
// module is.
type closingLocker interface {
	lockstep.Locker
	Close(context.Context) error
}

// lockstepContender adapts a locker of this module to contender. Its store
// is wrapped in a countingStore, so the requests of every Lock and Unlock are
// counted through the tally in their ctx and the rest as background.
type lockstepContender struct {
	l     closingLocker
	store *countingStore
}

func (c lockstepContender) Lock(ctx context.Context, id string) (unlocker, error) {
	return c.l.Lock(ctx, id)
}

func (c lockstepContender) Close(ctx context.Context) error { return c.l.Close(ctx) }

func (c lockstepContender) backgroundRequests() int64 { return c.store.background.Load() }

func (c lockstepContender) storeReads() int64 { return c.store.reads.Load() }

func (c lockstepContender) slowestRequest() (time.Duration, int64) { return c.store.slowestRequest() }

func (c lockstepContender) resetSlowest() { c.store.resetSlowest() }

// lockerParams are the settings one process's locker of this module gets.
type lockerParams struct {
	store   lockstep.Store
	clock   lockstep.Clock  // nil: the local clock
	process string          // the process id, unique across the fleet
	poll    time.Duration   // the queue lock's re-read interval
	rand    *rand.Rand      // the legacy backoff's source; nil: random
	wake    *queuelock.Wake // algoNewWake's wake-ups
	slow    time.Duration   // the queue lock's SlowPoll; 0: its default
	fencing bool            // every acquisition draws a fencing token from the global time service
	local   int             // algoNewLocal's and algoNewRetain's Options.LocalHandoff
	retain  time.Duration   // algoNewRetain's Options.Retain
}

// newLockstepContender returns a contender running algorithm a of this
// module with p, counting its requests.
func newLockstepContender(a algorithm, p lockerParams) (contender, error) {
	clk := p.clock
	if clk == nil {
		clk = &clock.Local{}
	}
	store := &countingStore{inner: p.store, clock: clk}
	queue := &queuelock.Options{Clock: p.clock, ProcessID: p.process, Poll: p.poll, SlowPoll: p.slow}
	legacy := &shadowlock.Options{Clock: p.clock, ProcessID: p.process, Rand: p.rand}
	var global *clock.Global
	if a == algoNewFenced || a == algoNewEvidence {
		p.fencing = true
	}
	if p.fencing { // seed 000 §5.4's time service: one cell in the store, drawn from once per acquisition
		var err error
		if global, err = clock.NewGlobal(store, "", clk); err != nil {
			return nil, err
		}
		if a != algoCombined { // combined draws one token for both halves
			queue.Fencing, legacy.Fencing = global, global
		}
	}
	var (
		l   closingLocker
		err error
	)
	switch a {
	case algoNew, algoNewFenced:
		l, err = queuelock.New(store, queue)
	case algoNewEvidence:
		queue.Evidence = queuelock.EvidenceUse
		l, err = queuelock.New(store, queue)
	case algoNewWake:
		queue.Wake = p.wake
		l, err = queuelock.New(store, queue)
	case algoNewHandoff:
		queue.Wake, queue.Handoff = p.wake, true
		l, err = queuelock.New(store, queue)
	case algoNewLocal:
		queue.LocalHandoff = p.local
		l, err = queuelock.New(store, queue)
	case algoNewRetain:
		queue.LocalHandoff, queue.Retain = p.local, p.retain
		l, err = queuelock.New(store, queue)
	case algoLegacy:
		l, err = shadowlock.New(store, legacy)
	case algoCombined:
		l, err = combined.New(store, &combined.Options{Queue: queue, Legacy: legacy, Fencing: global})
	default:
		return nil, fmt.Errorf("%s is not an algorithm of this module", a)
	}
	if err != nil {
		return nil, fmt.Errorf("%s locker for process %s: %w", a, p.process, err)
	}
	return lockstepContender{l: l, store: store}, nil
}
