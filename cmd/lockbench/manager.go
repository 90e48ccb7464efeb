package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
)

// The manager scenario: seed 003's performance scenarios (§4.3)
// on the lock manager — lock groups of hierarchical ids.
//
//   - perf 1, disjoint groups: N clients each take a group of M locks of
//     depth L, names unique per client, K times; the rate of one
//     acquisition is V = M / (time2 − time1), averaged over the rounds and
//     the clients.
//   - perf 2, one lock beside a held group: a separate client holds M locks
//     of depth L; N clients each take and release one lock of depth L of
//     their own, K times; the mean acquire and release times, and the heap.
//   - perf 3, overlapping groups: as perf 1, but P % of the M names are the
//     same for every client (taken in the access of the table: Exclusive,
//     or Shared), the rest unique; P = 10 … 100.
//
// A lock of depth L is a path of L segments: the run's prefix, then d2 …
// d(L−1), then the lock's own name, so every lock of a run shares its
// ancestors with every other and, with Separator "/", takes intention locks
// on them (IX, or IS below a Shared request) which are compatible with each
// other: depth costs the intention locks' requests, not exclusion. At depth
// 1 the name has no ancestor.
//
// The LWT baseline (real backend) locks each requested id (not its
// ancestors: an LWT lock has no intention mode, and an exclusive lock of a
// shared ancestor would serialize every group) in ascending order, one
// conditional INSERT each, and releases them in reverse; it has no shared
// mode either, so a Shared request is exclusive there.

// groupLocker is what the manager scenario needs of an implementation.
type groupLocker interface {
	LockGroup(ctx context.Context, reqs ...lockstep.Request) (unlocker, error)
	Close(ctx context.Context) error
}

// lockstepGroup adapts a GroupLocker of this module.
type lockstepGroup struct{ l lockstep.GroupLocker }

func (g lockstepGroup) LockGroup(ctx context.Context, reqs ...lockstep.Request) (unlocker, error) {
	return g.l.LockGroup(ctx, reqs...)
}

func (g lockstepGroup) Close(ctx context.Context) error { return g.l.Close(ctx) }

// lwtGroup takes a group as LWT locks of its ids in ascending order: the
// canonical order that keeps two groups from waiting for each other in a
// cycle. Every access is exclusive.
type lwtGroup struct{ l *lwtLocker }

func (g lwtGroup) LockGroup(ctx context.Context, reqs ...lockstep.Request) (unlocker, error) {
	ids := make([]string, 0, len(reqs))
	for _, r := range reqs {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	held := make(lwtHeldGroup, 0, len(ids))
	for _, id := range ids {
		h, err := g.l.Lock(ctx, id)
		if err != nil {
			_ = held.Unlock(context.WithoutCancel(ctx))
			return nil, err
		}
		held = append(held, h)
	}
	return held, nil
}

func (g lwtGroup) Close(ctx context.Context) error { return g.l.Close(ctx) }

// lwtHeldGroup is a held LWT group, released last first.
type lwtHeldGroup []unlocker

func (h lwtHeldGroup) Unlock(ctx context.Context) error {
	var errs []error
	for i := len(h) - 1; i >= 0; i-- {
		errs = append(errs, unlockRetrying(ctx, h[i]))
	}
	return errors.Join(errs...)
}

// mgrID is the id of lock leaf at depth in a run's prefix.
func mgrID(prefix string, depth int, leaf string) string {
	if depth <= 1 {
		return prefix + "." + leaf
	}
	parts := []string{prefix}
	for i := 2; i < depth; i++ {
		parts = append(parts, fmt.Sprintf("d%d", i))
	}
	return strings.Join(append(parts, leaf), "/")
}

// mgrCell is one run of a manager table: its shape and what it measured.
type mgrCell struct {
	perf      int // 1, 2 or 3
	algorithm algorithm
	clients   int
	depth     int
	share     int             // perf 3: P, percent
	access    lockstep.Access // perf 3: the access of the shared names
	// rate is the mean over clients and rounds of M / acquisition time,
	// locks per second (perf 1 and 3).
	rate float64
	// acquire and release are the mean times of one acquisition and one
	// release (perf 2; perf 1 and 3: of a whole group).
	acquire, release time.Duration
	// heap is the live heap while the separate client holds its M locks
	// (and the N clients' Lockers exist), less the heap before the Lockers
	// were made (perf 2).
	heap   int64
	rounds int
	// blocked says the cell cannot run by design (perf 2, legacy and
	// combined at depth 2 and more): why, instead of figures.
	blocked string
}

// blockedByAncestors is why perf 2 cannot run legacy or combined at depth
// 2 or more: they take every member exclusively (the legacy wire format has
// only exclusive locks), so the separate client's group holds the shared
// ancestors exclusively, and no client gets past them until it releases,
// which it does only after them.
const blockedByAncestors = "blocked"

// mgrWorld is what a cell runs on: fresh Lockers of one algorithm on a
// fresh prefix, a clock to time with, and a way to run the work (on
// virtual time for the sim backend).
type mgrWorld interface {
	lockers(a algorithm, n int) ([]groupLocker, error)
	clock() lockstep.Clock
	run(work func())
	prefix() string
}

// mgrParams are the sizes of one manager run.
type mgrParams struct {
	m, k, held int
	// idle is perf 2's holders under the ancestors: Lockers besides the N
	// clients that each hold one lock of depth L for the whole cell, so
	// every ancestor has idle+1 holders in IX before the clients start.
	idle int
}

// timed acquires reqs on l, measuring the acquisition and the release.
func timed(ctx context.Context, clk lockstep.Clock, l groupLocker, reqs []lockstep.Request) (acq, rel time.Duration, err error) {
	t1 := clk.Now()
	h, err := l.LockGroup(ctx, reqs...)
	if err != nil {
		return 0, 0, err
	}
	t2 := clk.Now()
	err = unlockRetrying(context.WithoutCancel(ctx), h)
	t3 := clk.Now()
	return time.Duration(t2-t1) * time.Microsecond, time.Duration(t3-t2) * time.Microsecond, err
}

// warmUpThenWait is a client's round before its timed ones: it takes and
// releases a lock of its own at the cell's depth, so that a fresh Locker's
// first requests (connections, prepared statements on the real backend)
// are not in the figures, then waits for every client to have done so. The
// wait matters: were a client to go on alone, an unordered lock would let
// the clients that warmed up first run all their rounds while the others
// still wait in their warm-up, and the long waits would fall in the
// uncounted round.
func warmUpThenWait(clk lockstep.Clock, l groupLocker, id string, warm *sync.WaitGroup) error {
	_, _, err := timed(context.Background(), clk, l, []lockstep.Request{{ID: id}})
	warm.Done()
	warm.Wait()
	if err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	return nil
}

// clientsRun runs body for each client concurrently, started one µs apart
// (on virtual time nothing then races), and returns the first error.
func clientsRun(clk lockstep.Clock, n int, body func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for i := range n {
		wg.Go(func() {
			_ = clk.Sleep(context.Background(), time.Duration(i+1)*time.Microsecond)
			if err := body(i); err != nil {
				mu.Lock()
				first = cmpOr(first, fmt.Errorf("client %d: %w", i, err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return first
}

// closeAll closes the Lockers of a cell (inside mgrWorld.run: on virtual
// time their releases are store requests).
func closeAll(ls []groupLocker) error {
	var errs []error
	for _, l := range ls {
		errs = append(errs, l.Close(context.Background()))
	}
	return errors.Join(errs...)
}

// runGroups is perf 1 (share 0) and perf 3: n clients, K groups each of M
// locks of depth, the first share % of them shared by every client in
// access, the rest unique to the client and exclusive.
func runGroups(w mgrWorld, a algorithm, p mgrParams, n, depth, share int, access lockstep.Access) (mgrCell, error) {
	cell := mgrCell{perf: 1, algorithm: a, clients: n, depth: depth, share: share, access: access}
	if share > 0 {
		cell.perf = 3
	}
	ls, err := w.lockers(a, n)
	if err != nil {
		return cell, err
	}
	prefix, clk := w.prefix(), w.clock()
	shared := p.m * share / 100
	var (
		mu             sync.Mutex
		rates          float64
		acqSum, relSum time.Duration
		rounds         int
	)
	w.run(func() {
		var warm sync.WaitGroup
		warm.Add(n)
		err = clientsRun(clk, n, func(i int) error {
			reqs := make([]lockstep.Request, p.m)
			for j := range reqs {
				if j < shared {
					reqs[j] = lockstep.Request{ID: mgrID(prefix, depth, fmt.Sprintf("s%d", j)), Access: access}
				} else {
					reqs[j] = lockstep.Request{ID: mgrID(prefix, depth, fmt.Sprintf("c%dk%d", i, j))}
				}
			}
			if err := warmUpThenWait(clk, ls[i], mgrID(prefix, depth, fmt.Sprintf("w%d", i)), &warm); err != nil {
				return err
			}
			for range p.k {
				acq, rel, err := timed(context.Background(), clk, ls[i], reqs)
				if err != nil {
					return err
				}
				mu.Lock()
				rates += float64(p.m) / max(acq.Seconds(), 1e-6)
				acqSum, relSum, rounds = acqSum+acq, relSum+rel, rounds+1
				mu.Unlock()
			}
			return nil
		})
		err = errors.Join(err, closeAll(ls))
	})
	if rounds > 0 {
		cell.rate, cell.acquire, cell.release, cell.rounds = rates/float64(rounds), acqSum/time.Duration(rounds), relSum/time.Duration(rounds), rounds
	}
	return cell, err
}

// runBeside is perf 2: a separate client holds p.held locks of depth (and
// p.idle other Lockers one each); n clients each take and release one lock
// of depth of their own, K times.
func runBeside(w mgrWorld, a algorithm, p mgrParams, n, depth int) (mgrCell, error) {
	cell := mgrCell{perf: 2, algorithm: a, clients: n, depth: depth}
	if depth >= 2 && (a == algoLegacy || a == algoCombined) {
		cell.blocked = blockedByAncestors
		return cell, nil
	}
	before := heapAfterGC()
	ls, err := w.lockers(a, n+1+p.idle)
	if err != nil {
		return cell, err
	}
	prefix, clk := w.prefix(), w.clock()
	var (
		mu             sync.Mutex
		acqSum, relSum time.Duration
		rounds         int
	)
	w.run(func() {
		ctx := context.Background()
		reqs := make([]lockstep.Request, p.held)
		for j := range reqs {
			reqs[j] = lockstep.Request{ID: mgrID(prefix, depth, fmt.Sprintf("h%d", j))}
		}
		var held unlocker
		if held, err = ls[n].LockGroup(ctx, reqs...); err != nil {
			err = fmt.Errorf("the separate client's %d locks: %w", p.held, err)
			return
		}
		var idle []unlocker // released before the Lockers close (Close releases them on an error's way out)
		for j := range p.idle {
			h, ierr := ls[n+1+j].LockGroup(ctx, lockstep.Request{ID: mgrID(prefix, depth, fmt.Sprintf("i%d", j))})
			if ierr != nil {
				err = fmt.Errorf("idle holder %d: %w", j, ierr)
				return
			}
			idle = append(idle, h)
		}
		var warm sync.WaitGroup
		warm.Add(n)
		err = clientsRun(clk, n, func(i int) error {
			own := []lockstep.Request{{ID: mgrID(prefix, depth, fmt.Sprintf("c%d", i))}}
			if err := warmUpThenWait(clk, ls[i], mgrID(prefix, depth, fmt.Sprintf("w%d", i)), &warm); err != nil {
				return err
			}
			for range p.k {
				acq, rel, err := timed(ctx, clk, ls[i], own)
				if err != nil {
					return err
				}
				mu.Lock()
				acqSum, relSum, rounds = acqSum+acq, relSum+rel, rounds+1
				mu.Unlock()
			}
			return nil
		})
		cell.heap = heapAfterGC() - before
		for _, h := range idle {
			err = errors.Join(err, unlockRetrying(ctx, h))
		}
		err = errors.Join(err, unlockRetrying(ctx, held), closeAll(ls))
	})
	if rounds > 0 {
		cell.acquire, cell.release, cell.rounds = acqSum/time.Duration(rounds), relSum/time.Duration(rounds), rounds
	}
	return cell, err
}
