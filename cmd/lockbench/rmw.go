package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/lockstep-go/lockstep"
)

// The rmw scenario is seed 002's experiment (§4 of the paper): users
// repeat "download – modify – upload" on shared resources, either holding
// a lock throughout (pessimistic, the paper's protocol a) or taking none
// and checking the version at upload (optimistic, its O-C protocol c: an
// upload whose version moved since the download is refused, and the user
// starts over). It reports the paper's measures — the total time of the
// run, the failed requests, the interactions Co, the bandwidth, the share
// of the time users wait, and the ratios At, Af and A of the two protocols
// (rmw_measures.go) — for its three workloads: every
// user on one resource (its Figs. 4–5), users on several resources (6–7),
// and one resource with downloads only and download–modify–uploads mixed
// 2:1 (8–9). Each resource is a counter, so the run also checks what the
// paper proves: its final value is the number of uploads that succeeded
// (a lost update would leave it short).

// rmwWorkload is one of the paper's three workloads.
type rmwWorkload string

const (
	rmwSingle  rmwWorkload = "single"   // every operation a download–modify–upload of resource 0
	rmwMulti   rmwWorkload = "multi"    // each operation on a resource drawn at random from -resources
	rmwReadMix rmwWorkload = "read-mix" // resource 0; downloads only and download–modify–uploads 2:1
)

var rmwWorkloads = []rmwWorkload{rmwSingle, rmwMulti, rmwReadMix}

// rmwStrategy is how a user keeps its read-modify-write consistent.
type rmwStrategy string

const (
	// rmwPessimistic takes the resource's lock exclusively for every
	// operation, downloads included (the paper's protocol a).
	rmwPessimistic rmwStrategy = "pessimistic"
	// rmwPessimisticRW takes it shared for a download only and exclusively
	// for a download–modify–upload: this library's read/write lock, which
	// the paper's lock does not have.
	rmwPessimisticRW rmwStrategy = "pessimistic-rw"
	// rmwOptimistic takes no lock: the upload is a compare-and-set on the
	// version the download read; refused, the user waits a random time up
	// to one modify time and starts the operation over.
	rmwOptimistic rmwStrategy = "optimistic"
	// rmwBlind is the optimistic strategy without its version check (the
	// upload writes whatever the version): a broken protocol, never
	// offered by the flags; the tests run it to show the lost-update count
	// sees what it loses.
	rmwBlind rmwStrategy = "blind"
)

var rmwStrategies = []rmwStrategy{rmwPessimistic, rmwPessimisticRW, rmwOptimistic}

// rmwParams are the sizes of one cell.
type rmwParams struct {
	users, ops, resources int
	modify                time.Duration // mean time a modify takes; drawn from [modify/2, 3·modify/2]
	seed                  uint64
}

// rmwCell is one (workload, strategy, users) run.
type rmwCell struct {
	workload     rmwWorkload
	strategy     rmwStrategy
	users        int
	total        time.Duration   // first operation's start to the last one's end
	ops          []time.Duration // each operation's time, retries included
	uploads      int64           // download–modify–uploads that succeeded
	downloads    int64           // downloads-only that succeeded
	failures     int64           // uploads refused (optimistic)
	unknown      int64           // uploads whose outcome is unknown (a compare-and-set timed out), each followed by a restart
	lostUpdates  int64           // uploads minus the final sum of the counters, when that is positive
	extra        int64           // the final sum of the counters minus the uploads, when that is positive: unknown uploads that were applied
	resourcesHit int
	downSpans    []span          // every download request (a read), whole cell
	upSpans      []span          // every upload request (a write or a compare-and-set), refused ones included
	waits        []time.Duration // per user: its time waiting before the passes that counted (rmwUser.wait)
}

// rmwUser is one user's state in a cell.
type rmwUser struct {
	rnd                          *rand.Rand
	uploads, downloads, failures int64
	unknown                      int64
	ops                          []time.Duration
	downSpans, upSpans           []span
	// wait is the user's time spent before the pass of each operation
	// that counted: in Lock for the pessimistic strategies; in refused
	// attempts and the back-offs after them for the optimistic one.
	wait time.Duration
}

// runRMW runs one cell on w: p.users users, each p.ops operations, with
// strategy s on workload wl; reg is the resource, on keys of w's prefix.
func runRMW(w mgrWorld, reg register, wl rmwWorkload, s rmwStrategy, p rmwParams) (rmwCell, error) {
	cell := rmwCell{workload: wl, strategy: s, users: p.users}
	var ls []groupLocker
	if s != rmwOptimistic && s != rmwBlind {
		var err error
		if ls, err = w.lockers(algoNew, p.users); err != nil {
			return cell, err
		}
	}
	resources := 1
	if wl == rmwMulti {
		resources = p.resources
	}
	// flat ids (no "/"): the lockers are hierarchical, and an id with
	// ancestors would add their intention locks to every operation
	key := func(r int) string { return fmt.Sprintf("%s-rmw-%s-r%d", w.prefix(), s, r) }
	clk := w.clock()
	users := make([]rmwUser, p.users)
	var err error
	w.run(func() {
		start := clk.Now()
		err = clientsRun(clk, p.users, func(i int) error {
			u := &users[i]
			u.rnd = rand.New(rand.NewPCG(p.seed, uint64(i)))
			var l groupLocker
			if ls != nil {
				l = ls[i]
			}
			for range p.ops {
				// users start their operations at random moments: a think
				// time up to one modify time before each
				if err := clk.Sleep(context.Background(), randIn(u.rnd, 0, p.modify)); err != nil {
					return err
				}
				r := 0
				if resources > 1 {
					r = u.rnd.IntN(resources)
				}
				upload := wl != rmwReadMix || u.rnd.IntN(3) == 0
				t0 := clk.Now()
				if err := rmwOperation(context.Background(), clk, reg, l, key(r), s, upload, p.modify, u); err != nil {
					return err
				}
				u.ops = append(u.ops, time.Duration(clk.Now()-t0)*time.Microsecond)
			}
			return nil
		})
		cell.total = time.Duration(clk.Now()-start) * time.Microsecond
		if ls != nil {
			err = errors.Join(err, closeAll(ls))
		}
		if err != nil {
			return
		}
		var sum int64
		for r := range resources {
			v, _, rerr := reg.read(context.Background(), key(r))
			if rerr != nil {
				err = fmt.Errorf("reading resource %d back: %w", r, rerr)
				return
			}
			sum += v
			if v > 0 {
				cell.resourcesHit++
			}
		}
		for _, u := range users {
			cell.uploads += u.uploads
			cell.downloads += u.downloads
			cell.failures += u.failures
			cell.unknown += u.unknown
			cell.ops = append(cell.ops, u.ops...)
			cell.downSpans = append(cell.downSpans, u.downSpans...)
			cell.upSpans = append(cell.upSpans, u.upSpans...)
			cell.waits = append(cell.waits, u.wait)
		}
		cell.lostUpdates = max(0, cell.uploads-sum)
		cell.extra = max(0, sum-cell.uploads)
	})
	slices.Sort(cell.ops)
	return cell, err
}

// rmwOperation is one operation of user u on key: a download, then for an
// upload a modify (time drawn around modify) and the upload, kept
// consistent by strategy s.
func rmwOperation(ctx context.Context, clk lockstep.Clock, reg register, l groupLocker, key string, s rmwStrategy, upload bool, modify time.Duration, u *rmwUser) error {
	start := clk.Now()
	switch s {
	case rmwPessimistic, rmwPessimisticRW:
		access := lockstep.Exclusive
		if !upload && s == rmwPessimisticRW {
			access = lockstep.Shared
		}
		h, err := l.LockGroup(ctx, lockstep.Request{ID: key, Access: access})
		u.wait += micros(clk.Now() - start)
		if err != nil {
			return fmt.Errorf("lock %s: %w", key, err)
		}
		err = pessimisticRMW(ctx, clk, reg, key, upload, modify, u)
		return errors.Join(err, unlockRetrying(context.WithoutCancel(ctx), h))
	case rmwOptimistic, rmwBlind:
		for {
			attempt := clk.Now()
			v, ver, err := timedRead(ctx, clk, reg, key, u)
			if err != nil {
				return err
			}
			if !upload {
				u.downloads++
				u.wait += micros(attempt - start)
				return nil
			}
			if err := clk.Sleep(ctx, randIn(u.rnd, modify/2, modify*3/2)); err != nil {
				return err
			}
			var ok bool
			t := clk.Now()
			if s == rmwBlind {
				ok, err = true, reg.write(ctx, key, v+1, ver+1)
			} else {
				ok, err = reg.cas(ctx, key, ver, v+1)
			}
			u.upSpans = append(u.upSpans, span{t, clk.Now()})
			switch {
			case errors.Is(err, lockstep.ErrUnknownOutcome):
				// maybe applied: the user cannot count it, and starts
				// over as after a refusal; the check at the end allows
				// the counters up to one more per unknown upload
				u.unknown++
			case err != nil:
				return err
			case ok:
				u.uploads++
				u.wait += micros(attempt - start)
				return nil
			default:
				u.failures++
			}
			if err := clk.Sleep(ctx, randIn(u.rnd, 0, modify)); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("unknown strategy %q", s)
}

// pessimisticRMW is the locked part of a pessimistic operation.
func pessimisticRMW(ctx context.Context, clk lockstep.Clock, reg register, key string, upload bool, modify time.Duration, u *rmwUser) error {
	v, ver, err := timedRead(ctx, clk, reg, key, u)
	if err != nil {
		return err
	}
	if !upload {
		u.downloads++
		return nil
	}
	if err := clk.Sleep(ctx, randIn(u.rnd, modify/2, modify*3/2)); err != nil {
		return err
	}
	t := clk.Now()
	err = reg.write(ctx, key, v+1, ver+1)
	u.upSpans = append(u.upSpans, span{t, clk.Now()})
	if err != nil {
		return err
	}
	u.uploads++
	return nil
}

// timedRead is a download: reg.read, its time recorded in u.downSpans.
func timedRead(ctx context.Context, clk lockstep.Clock, reg register, key string, u *rmwUser) (value, version int64, err error) {
	t := clk.Now()
	value, version, err = reg.read(ctx, key)
	u.downSpans = append(u.downSpans, span{t, clk.Now()})
	return value, version, err
}

// micros converts a difference of two clock readings to a Duration.
func micros(d int64) time.Duration { return time.Duration(d) * time.Microsecond }

// randIn draws a duration uniformly from [lo, hi].
func randIn(rnd *rand.Rand, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(rnd.Int64N(int64(hi-lo)+1))
}

// checkCounters is the run's consistency check: the counters' final sum is
// the uploads that succeeded, plus at most one per upload whose outcome is
// unknown (each may have been applied). A lost update leaves the sum short;
// with unknown uploads, as many lost updates as applied unknowns would
// cancel out, so the check is exact only when unknown is 0.
func (c rmwCell) checkCounters() error {
	if c.lostUpdates > 0 {
		return fmt.Errorf("%d lost updates", c.lostUpdates)
	}
	if c.extra > c.unknown {
		return fmt.Errorf("the counters hold %d more than the uploads, but only %d uploads had an unknown outcome", c.extra, c.unknown)
	}
	return nil
}
