package main

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Bandwidth (eqs. 4-5): two users, one request alone, then both at once,
// then one again, then a gap, then one: the peak is both users; the mean
// counts the time at least one was in flight, not the gap.
func TestOccupancy_PeakAndMeanWhileAnyIsInFlight(t *testing.T) {
	peak, mean := occupancy([]span{{0, 10}, {5, 15}, {20, 30}}, 2)
	require.Equal(t, 1.0, peak)
	// busy 0-15 and 20-30 (25 µs); in flight 1·5 + 2·5 + 1·5 + 1·10 = 30
	require.InDelta(t, 30.0/25/2, mean, 1e-12)
}

// A request that starts as another ends is not in flight with it, and a
// request of no length occupies no time.
func TestOccupancy_TouchingAndEmptySpansDoNotOverlap(t *testing.T) {
	peak, mean := occupancy([]span{{0, 10}, {10, 20}, {15, 15}}, 4)
	require.Equal(t, 0.25, peak)
	require.Equal(t, 0.25, mean)
}

func TestOccupancy_NoRequestsIsZero(t *testing.T) {
	peak, mean := occupancy(nil, 3)
	require.Zero(t, peak)
	require.Zero(t, mean)
	peak, mean = occupancy([]span{{5, 5}}, 3)
	require.Zero(t, peak)
	require.Zero(t, mean)
}

// Co (eq. 6) is the operations plus the restarts, one per refused upload;
// without a refusal it is the operations.
func TestMeasureRMW_CoIsOperationsPlusRestarts(t *testing.T) {
	c := rmwCell{users: 2, ops: make([]time.Duration, 4), failures: 3, total: time.Second}
	m := measureRMW(c)
	require.EqualValues(t, 7, m.co)
	require.Equal(t, 1.75, m.coPerOp)

	c.failures = 0
	m = measureRMW(c)
	require.EqualValues(t, 4, m.co)
	require.Equal(t, 1.0, m.coPerOp)
}

// The wait share (§4) is the users' mean wait over the total time.
func TestWaitShare_IsTheMeanWaitOverTheTotal(t *testing.T) {
	require.InDelta(t, 0.2, waitShare([]time.Duration{10 * time.Millisecond, 30 * time.Millisecond}, 100*time.Millisecond), 1e-12)
	require.Zero(t, waitShare([]time.Duration{0, 0, 0}, time.Second), "nobody waited")
	require.Zero(t, waitShare(nil, time.Second), "no users")
	require.Zero(t, waitShare([]time.Duration{time.Millisecond}, 0), "no time")
}

// measureRMW takes the bandwidth from the cell's spans and the wait share
// from its waits.
func TestMeasureRMW_BandwidthAndWaitShareFromTheCell(t *testing.T) {
	c := rmwCell{users: 2, ops: make([]time.Duration, 2), total: 100 * time.Microsecond,
		downSpans: []span{{0, 10}, {0, 10}}, upSpans: []span{{20, 30}, {40, 50}},
		waits: []time.Duration{0, 20 * time.Microsecond}}
	m := measureRMW(c)
	require.Equal(t, 1.0, m.brPeak)
	require.Equal(t, 1.0, m.brMean)
	require.Equal(t, 0.5, m.bwPeak)
	require.Equal(t, 0.5, m.bwMean)
	require.InDelta(t, 0.1, m.waitShare, 1e-12)
}

// At (eq. 9) is the pessimistic total time over the optimistic one.
func TestCompareRMW_AtIsPessimisticTimeOverOptimistic(t *testing.T) {
	a := rmwCell{total: 300 * time.Millisecond, uploads: 10}
	c := rmwCell{total: 200 * time.Millisecond, uploads: 10}
	require.Equal(t, 1.5, compareRMW(a, c).at)
	require.True(t, math.IsNaN(compareRMW(a, rmwCell{uploads: 10}).at), "an optimistic run of no time")
}

// Af (eq. 10) against a lock, which refuses no upload (F(a) = 0, the
// paper's ratio undefined): upload requests per upload that succeeded, so
// 5 refusals over 10 uploads is 1.5; A (eq. 11) is Af over At.
func TestCompareRMW_AfAgainstALockThatRefusedNothing(t *testing.T) {
	a := rmwCell{total: 200 * time.Millisecond, uploads: 10}
	c := rmwCell{total: 100 * time.Millisecond, uploads: 10, failures: 5}
	r := compareRMW(a, c)
	require.Equal(t, 1.5, r.af)
	require.Equal(t, 2.0, r.at)
	require.Equal(t, 0.75, r.a)
	require.Equal(t, "c better", verdict(r.a))
}

// With no failure on either side Af is 1, and A is 1/At: c is better
// exactly when it took less time.
func TestCompareRMW_NoFailuresOnEitherSideIsAfOne(t *testing.T) {
	a := rmwCell{total: 100 * time.Millisecond, uploads: 10}
	c := rmwCell{total: 125 * time.Millisecond, uploads: 8}
	r := compareRMW(a, c)
	require.Equal(t, 1.0, r.af)
	require.Equal(t, 1.25, r.a)
	require.Equal(t, "c worse", verdict(r.a))
}

// When both fail, Af compares requests per upload: 2 for a (10 failures
// over 10 uploads), 4 for c (60 over 20).
func TestCompareRMW_AfWithFailuresOnBothSides(t *testing.T) {
	a := rmwCell{total: time.Second, uploads: 10, failures: 10}
	c := rmwCell{total: time.Second, uploads: 20, failures: 60}
	require.Equal(t, 2.0, compareRMW(a, c).af)
}

// Without uploads on a side there is nothing to compare: Af and A are
// undefined and print as "–".
func TestCompareRMW_NoUploadsIsUndefined(t *testing.T) {
	r := compareRMW(rmwCell{total: time.Second}, rmwCell{total: time.Second, uploads: 3})
	require.True(t, math.IsNaN(r.af))
	require.True(t, math.IsNaN(r.a))
	require.Equal(t, 1.0, r.at)
	require.Equal(t, "–", ratio(r.af))
	require.Equal(t, "–", verdict(r.a))
}

// The run records what the measures need: a download per attempt, an
// upload request per upload tried, refused ones included, and a wait per
// user; an optimistic user alone never waits, a pessimistic one spends
// its Locks' time.
func TestRMW_RecordsSpansAndWaits(t *testing.T) {
	for _, s := range []rmwStrategy{rmwOptimistic, rmwPessimistic} {
		c := simRMW(t, rmwReadMix, s, 3)
		require.Len(t, c.downSpans, int(c.uploads+c.downloads+c.failures), s)
		require.Len(t, c.upSpans, int(c.uploads+c.failures), s)
		require.Len(t, c.waits, 3, s)
		for _, sp := range append(c.downSpans, c.upSpans...) {
			require.Greater(t, sp.to, sp.from, s)
		}
	}
	require.Zero(t, simRMW(t, rmwSingle, rmwOptimistic, 1).waits[0])
	require.Positive(t, simRMW(t, rmwSingle, rmwPessimistic, 1).waits[0])
	contended := simRMW(t, rmwSingle, rmwOptimistic, 4)
	require.Positive(t, contended.failures)
	require.Positive(t, measureRMW(contended).waitShare)
}

// The report compares each optimistic cell with every pessimistic cell of
// its workload and users, beside the paper's conclusion.
func TestWriteRMWMeasures_ComparesBesideThePaper(t *testing.T) {
	cells := []rmwCell{
		{workload: rmwMulti, strategy: rmwPessimistic, users: 2, total: 200 * time.Millisecond, uploads: 10, ops: make([]time.Duration, 10)},
		{workload: rmwMulti, strategy: rmwOptimistic, users: 2, total: 100 * time.Millisecond, uploads: 10, failures: 5, ops: make([]time.Duration, 10),
			waits: []time.Duration{10 * time.Millisecond, 0}},
	}
	var b bytes.Buffer
	writeRMWMeasures(&b, cells)
	out := b.String()
	require.Contains(t, out, "multi      2  pessimistic  2.00  1.50  0.75  c better  "+rmwPaperConclusion[rmwMulti])
	require.Contains(t, out, "wait share, mean of the workloads run: 2 users 5.0%")
}

// An upload whose outcome is unknown restarts the operation as a refusal
// does: it counts in Co and in Af's upload requests.
func TestMeasures_UnknownUploadsCountAsRestarts(t *testing.T) {
	c := rmwCell{users: 1, ops: make([]time.Duration, 4), uploads: 4, failures: 1, unknown: 1, total: time.Second}
	require.EqualValues(t, 6, measureRMW(c).co)
	a := rmwCell{uploads: 4, total: time.Second}
	require.Equal(t, 1.5, compareRMW(a, c).af)
}
