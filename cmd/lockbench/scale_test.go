package main

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model"
)

func TestPickHold_DrawsTheDocumentedMix(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 100000
	got := map[time.Duration]int{}
	for range n {
		got[pickHold(r)]++
	}
	require.Len(t, got, len(scaleHolds), "only the mix's hold times are drawn")
	for _, h := range scaleHolds {
		assert.InDelta(t, h.weight, float64(got[h.hold])/n, 0.01, "share of hold %v", h.hold)
	}
}

func TestPickID_StaysInRangeAndFavoursTheHotIDs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, ids = 100000, 1000
	hot := 0
	for range n {
		id := pickID(r, "x", ids)
		require.True(t, strings.HasPrefix(id, "x/"), id)
		k, err := strconv.Atoi(strings.TrimPrefix(id, "x/"))
		require.NoError(t, err)
		require.True(t, k >= 0 && k < ids, "id %d out of range", k)
		if k < scaleHotIDs {
			hot++
		}
	}
	// Hot picks plus the uniform picks that land on a hot id by chance.
	want := scaleHotShare + (1-scaleHotShare)*scaleHotIDs/ids
	assert.InDelta(t, want, float64(hot)/n, 0.01)
	// Fewer ids than hot ids: still in range.
	for range 100 {
		assert.Contains(t, []string{"y/0", "y/1", "y/2"}, pickID(r, "y", 3))
	}
}

func TestKindStore_CountsReadsAndWritesOfEveryPath(t *testing.T) {
	s := &kindStore{inner: model.New(model.NewManualClock(0))}
	ctx := context.Background()
	require.NoError(t, s.Put(withTally(ctx, &tally{}), "t", "r", lockstep.Cell{Column: "a", Timestamp: 1}))
	require.NoError(t, s.Put(ctx, "t", "r", lockstep.Cell{Column: "b", Timestamp: 2}))
	_, err := s.Read(ctx, "t", "r", lockstep.Slice{})
	require.NoError(t, err)
	require.NoError(t, s.Delete(ctx, "t", "r", 3, "a"))
	assert.EqualValues(t, 1, s.reads.Load())
	assert.EqualValues(t, 3, s.writes.Load())
	cells, err := s.inner.Read(ctx, "t", "r", lockstep.Slice{})
	require.NoError(t, err)
	require.Len(t, cells, 1, "the wrapper passes requests through")
	assert.Equal(t, "b", cells[0].Column)
	s.reset()
	assert.Zero(t, s.reads.Load()+s.writes.Load())
}

func TestRunSimScale_EveryAlgorithmAcquiresManyIDsAndCountsItsRequests(t *testing.T) {
	cfg := scaleConfig{processes: 3, ids: 50, duration: time.Second, poll: 10 * time.Millisecond}
	for _, a := range lockstepAlgorithms {
		t.Run(string(a), func(t *testing.T) {
			res, err := runSimScale(cfg, a, 500*time.Microsecond, 2*time.Millisecond, 1)
			require.NoError(t, err)
			require.Positive(t, res.Acquisitions)
			assert.Len(t, res.Waits, res.Acquisitions)
			assert.Greater(t, res.IDs, 10, "one process takes many ids")
			// Every acquisition reads at least once and writes at least
			// twice (claim, release).
			assert.GreaterOrEqual(t, res.Reads, int64(res.Acquisitions))
			assert.GreaterOrEqual(t, res.Writes, 2*int64(res.Acquisitions))
			assert.Equal(t, cfg.processes, res.Lockers)
			// At most 8 loops × 3 processes hold at once, each at least 1 ms
			// of virtual time.
			assert.LessOrEqual(t, res.Acquisitions, scaleLoops*cfg.processes*1000)
		})
	}
}

func TestRunSimScale_SameSeedSameRun(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector randomizes the scheduler: several loops of one Locker readied at once run in any order")
	}
	cfg := scaleConfig{processes: 2, ids: 20, duration: 500 * time.Millisecond, poll: 10 * time.Millisecond}
	a, err := runSimScale(cfg, algoNew, 500*time.Microsecond, 2*time.Millisecond, 7)
	require.NoError(t, err)
	b, err := runSimScale(cfg, algoNew, 500*time.Microsecond, 2*time.Millisecond, 7)
	require.NoError(t, err)
	assert.Equal(t, a.Acquisitions, b.Acquisitions)
	assert.Equal(t, a.Reads, b.Reads)
	assert.Equal(t, a.Writes, b.Writes)
}

func TestSummarizeScale_PerSecondPerAcquisitionPerLocker(t *testing.T) {
	waits := make([]time.Duration, 100)
	for i := range waits {
		waits[i] = time.Duration(100-i) * time.Millisecond
	}
	s := summarizeScale(scaleRun{duration: 4 * time.Second, res: scaleResult{
		Acquisitions: 100, Waits: waits, Reads: 250, Writes: 300, Heap: 3 << 20, Lockers: 3}})
	assert.InDelta(t, 25, s.throughput, 1e-9)
	assert.Equal(t, 50*time.Millisecond, s.p50)
	assert.Equal(t, 99*time.Millisecond, s.p99)
	assert.InDelta(t, 2.5, s.readsPerAcq, 1e-9)
	assert.InDelta(t, 3, s.writesPerA, 1e-9)
	assert.InDelta(t, 1<<20, s.heapPerLocker, 1e-9)
	assert.False(t, math.IsNaN(summarizeScale(scaleRun{}).readsPerAcq), "an empty run divides by nothing")
}
