package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockstep-go/lockstep"
)

// The scale scenario: a fleet of processes, each with one
// Locker, takes many lock ids at once with mixed hold times, as a service
// guarding per-entity work would. Each process runs scaleLoops acquisition
// loops concurrently on its one Locker; each loop picks an id and a hold time
// per acquisition:
//
//   - id: with probability scaleHotShare one of the scaleHotIDs hot ids,
//     otherwise any of the run's ids, uniformly (so the hot ids see mild
//     contention and the rest almost none);
//   - hold: scaleHolds, 1 ms 60%, 10 ms 30%, 100 ms 10% (mean 13.6 ms).
//
// The figures: acquisitions per second, the p99 acquisition wait, the store
// reads and writes per acquisition (every request of the process, including
// lease renewals, divided by its acquisitions) and the heap a Locker holds
// after the run (what closing and dropping it frees, after a GC).

// scaleLoops is how many acquisition loops each process runs on its Locker.
const scaleLoops = 8

// scaleHotIDs and scaleHotShare shape the id choice: scaleHotShare of the
// picks go to the first scaleHotIDs ids.
const (
	scaleHotIDs   = 10
	scaleHotShare = 0.1
)

// scaleHolds is the hold-time mix: each acquisition holds hold with
// probability weight (the weights sum to 1).
var scaleHolds = []struct {
	hold   time.Duration
	weight float64
}{
	{time.Millisecond, 0.6},
	{10 * time.Millisecond, 0.3},
	{100 * time.Millisecond, 0.1},
}

// scaleHoldText describes scaleHolds and the id choice for the output.
const scaleHoldText = "hold 1 ms 60% / 10 ms 30% / 100 ms 10%; ids: 10% of picks among 10 hot ids, the rest uniform"

// scaleConfig is one scale run's shape.
type scaleConfig struct {
	processes int
	ids       int
	duration  time.Duration // how long the processes acquire
	poll      time.Duration
}

// scaleResult is what one process of a scale run did. It travels as JSON
// from worker processes on the real backend.
type scaleResult struct {
	Acquisitions int             `json:"acquisitions"`
	Waits        []time.Duration `json:"waits"`
	IDs          int             `json:"ids"` // distinct ids the process took
	Reads        int64           `json:"reads"`
	Writes       int64           `json:"writes"` // puts and deletes (LWT: every conditional statement)
	// Heap is the bytes a GC frees when the process's Locker (or Lockers,
	// on the sim backend: their sum) is closed and dropped after the run.
	Heap int64 `json:"heap"`
	// Lockers is how many Lockers Heap covers.
	Lockers int `json:"lockers"`
}

// pickID picks a lock id by the scale scenario's mix.
func pickID(r *rand.Rand, prefix string, ids int) string {
	n := r.IntN(ids)
	if r.Float64() < scaleHotShare {
		n = r.IntN(min(scaleHotIDs, ids))
	}
	return fmt.Sprintf("%s/%d", prefix, n)
}

// pickHold picks a hold time by scaleHolds.
func pickHold(r *rand.Rand) time.Duration {
	x := r.Float64()
	for _, h := range scaleHolds {
		if x < h.weight {
			return h.hold
		}
		x -= h.weight
	}
	return scaleHolds[len(scaleHolds)-1].hold
}

// kindStore wraps a Store and counts its reads and its writes (puts and
// deletes), whatever the path that made them: acquisitions, releases,
// renewals. Safe for concurrent use if its inner store is.
type kindStore struct {
	inner         lockstep.Store
	reads, writes atomic.Int64
}

var _ lockstep.Store = (*kindStore)(nil)

func (s *kindStore) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	s.writes.Add(1)
	return s.inner.Put(ctx, table, row, cells...)
}

func (s *kindStore) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	s.writes.Add(1)
	return s.inner.Delete(ctx, table, row, ts, columns...)
}

func (s *kindStore) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	s.reads.Add(1)
	return s.inner.Read(ctx, table, row, sl)
}

// reset forgets the requests counted so far (a warm-up's).
func (s *kindStore) reset() { s.reads.Store(0); s.writes.Store(0) }

// scaleProcess runs one process's scaleLoops loops on c until ctx ends,
// each loop with its own random source (seeded by seed and the loop's
// index), and returns its acquisitions' waits and the distinct ids taken.
// Requests of Lock and Unlock are counted in acq and rel. It returns at the
// first error other than ctx ending.
func scaleProcess(ctx context.Context, c contender, clk lockstep.Clock, cfg scaleConfig, prefix string, seed uint64, acq, rel *tally) (scaleResult, error) {
	var (
		mu    sync.Mutex
		res   scaleResult
		taken = map[string]bool{}
		first error
		wg    sync.WaitGroup
	)
	for i := range scaleLoops {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		wg.Go(func() {
			// The loops begin one at a time, in index order, so that on
			// virtual time their first requests (and the latencies those
			// draw) never race.
			_ = clk.Sleep(ctx, time.Duration(i+1)*time.Microsecond)
			for ctx.Err() == nil {
				id, hold := pickID(r, prefix, cfg.ids), pickHold(r)
				t0 := clk.Now()
				h, err := c.Lock(withTally(ctx, acq), id)
				if err != nil {
					if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
						return
					}
					mu.Lock()
					first = cmpOr(first, fmt.Errorf("lock %s: %w", id, err))
					mu.Unlock()
					return
				}
				wait := time.Duration(clk.Now()-t0) * time.Microsecond
				// The hold and the release complete even when the run ends
				// meanwhile, or the lock would be left to its TTL.
				_ = clk.Sleep(context.WithoutCancel(ctx), hold)
				err = unlockRetrying(withTally(context.WithoutCancel(ctx), rel), h)
				mu.Lock()
				res.Waits = append(res.Waits, wait)
				taken[id] = true
				if err != nil {
					first = cmpOr(first, fmt.Errorf("unlock %s: %w", id, err))
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	res.Acquisitions, res.IDs = len(res.Waits), len(taken)
	return res, first
}

// unlockRetrying releases h as a service would: an Unlock that failed (a
// store timeout on a loaded cluster) leaves the lock releasable, and is
// retried (lockstep.Lock's contract), up to 10 times.
func unlockRetrying(ctx context.Context, h unlocker) error {
	var err error
	for range 10 {
		if err = h.Unlock(ctx); err == nil || errors.Is(err, lockstep.ErrLost) {
			return nil // released, or the lease had lapsed (its cells expire)
		}
	}
	return err
}

// cmpOr returns a if it is not nil, else b.
func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
