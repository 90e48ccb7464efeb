package check

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/robustness/history"
)

func cycleRun(t *testing.T, h *evs, opts Options) (LockmanReport, []Violation) {
	t.Helper()
	for _, e := range h.l {
		require.NoError(t, e.Validate())
	}
	var r Report
	vs := checkLockman(h.l, nil, opts, &r)
	return r.Lockman, vs
}

// pairCycle: a holds dl-0 and b dl-1 from 10 ms; from 200 ms a waits for
// dl-1 and b for dl-0; b's wait ends at end (ErrDeadlock) and it releases
// dl-1, so a gets it.
func pairCycle(end int64) *evs {
	return twoHolders().
		acq("b", "dl-0", "X", 200, end, history.Deadlock).last(deadlockOf("b", "a")).
		rel("b", "dl-1", end+10, end+10, end+20).
		acq("a", "dl-1", "X", 200, end+30, history.OK).
		rel("a", "dl-1", end+100, end+100, end+110).rel("a", "dl-0", end+110, end+110, end+120)
}

func TestCycle_APairBrokenInTimeIsNoViolation(t *testing.T) {
	r, vs := cycleRun(t, pairCycle(1500), Options{})
	assert.Empty(t, vs)
	assert.Equal(t, 1, r.Cycles)
	assert.Equal(t, 0, r.LongCycles)
	// Certain from 300 ms (the later invoke, narrowed by 100 ms) to
	// 1400 ms (b's return, narrowed).
	assert.Equal(t, 1100*time.Millisecond, r.LongestCycle)
	assert.Equal(t, 1, r.Confirmed)
}

func TestCycle_APairLastingPastTheBoundIsCaught(t *testing.T) {
	r, vs := cycleRun(t, pairCycle(200+6000), Options{})
	require.Len(t, vs, 1)
	assert.Equal(t, "cycle", vs[0].Checker)
	assert.Contains(t, vs[0].Detail, "a cycle of 2 waits")
	assert.Equal(t, 1, r.Cycles)
	assert.Equal(t, 5800*time.Millisecond, r.LongestCycle)
	assert.Greater(t, r.LongestCycle, CycleBound)
}

func TestCycle_ALongCycleInsideAFaultIsNotJudged(t *testing.T) {
	// The same 5.8 s cycle, with a fault from 0 to 1 s (and its 5 s of
	// recovery): the 0.1 s after 6 s is judged.
	r, vs := cycleRun(t, pairCycle(200+6000), Options{Faults: []Span{{From: ms(0), To: ms(1000)}}})
	assert.Empty(t, vs)
	assert.Equal(t, 100*time.Millisecond, r.LongestJudgedCycle)
	// A fault in its middle leaves less than the bound on either side.
	_, vs = cycleRun(t, pairCycle(200+6000), Options{Faults: []Span{{From: ms(2000), To: ms(2100)}}})
	assert.Empty(t, vs)
	// A fault long before does not excuse it.
	_, vs = cycleRun(t, pairCycle(200+6000), Options{Faults: []Span{{From: -ms(10000), To: -ms(9000)}}})
	assert.Len(t, vs, 1)
}

func TestCycle_ThreeProcessesInARing(t *testing.T) {
	h := &evs{}
	h.acq("a", "dl-0", "X", 0, 10, history.OK).acq("b", "dl-1", "S", 0, 10, history.OK).acq("c", "dl-2", "X", 0, 10, history.OK).
		acq("a", "dl-1", "X", 300, 7000, history.Fail).
		acq("b", "dl-2", "X", 300, 7000, history.Fail).
		acq("c", "dl-0", "S", 300, 7000, history.Fail).
		rel("a", "dl-0", 7010, 7010, 7020).rel("b", "dl-1", 7010, 7010, 7020).rel("c", "dl-2", 7010, 7010, 7020)
	r, vs := cycleRun(t, h, Options{})
	require.Len(t, vs, 1)
	assert.Contains(t, vs[0].Detail, "a cycle of 3 waits")
	assert.Equal(t, 1, r.Cycles)
	assert.Equal(t, 1, r.LongCycles)
	// Broken in time: no violation, still counted.
	h = &evs{}
	h.acq("a", "dl-0", "X", 0, 10, history.OK).acq("b", "dl-1", "X", 0, 10, history.OK).acq("c", "dl-2", "X", 0, 10, history.OK).
		acq("a", "dl-1", "X", 300, 2000, history.OK).
		acq("b", "dl-2", "X", 300, 1900, history.OK).
		acq("c", "dl-0", "X", 300, 1500, history.Deadlock).
		rel("c", "dl-2", 1510, 1510, 1520).rel("b", "dl-2", 1950, 1950, 1960).rel("b", "dl-1", 1960, 1960, 1970).
		rel("a", "dl-1", 2050, 2050, 2060).rel("a", "dl-0", 2060, 2060, 2070)
	r, vs = cycleRun(t, h, Options{})
	assert.Empty(t, checkersOf(vs, "cycle"))
	assert.Equal(t, 1, r.LongCycles)
}

func TestCycle_AReentrantAcquisitionNeverWaits(t *testing.T) {
	// a holds dl-0 and takes it again (reentrant, recorded as taking 8 s,
	// say a slow store); b waits for dl-0 holding dl-1: no cycle, since the
	// reentrant acquisition waits for nothing.
	h := twoHolders().
		acq("a", "dl-0", "X", 200, 8200, history.OK).last(func(e *history.Event) { e.Reentrant = true }).
		acq("b", "dl-0", "X", 200, 8300, history.Fail).
		rel("a", "dl-0", 8250, 8250, 8260).last(func(e *history.Event) { e.Reentrant = true }).
		rel("a", "dl-0", 8260, 8260, 8270).rel("b", "dl-1", 8300, 8300, 8310)
	r, vs := cycleRun(t, h, Options{})
	assert.Empty(t, vs)
	assert.Equal(t, 0, r.Cycles)
}

func TestCycle_CompatibleAccessesMakeNoCycle(t *testing.T) {
	h := &evs{}
	h.acq("a", "dl-0", "S", 0, 10, history.OK).acq("b", "dl-1", "S", 0, 10, history.OK).
		acq("a", "dl-1", "S", 200, 8000, history.Fail).
		acq("b", "dl-0", "S", 200, 8000, history.Fail).
		rel("a", "dl-0", 8010, 8010, 8020).rel("b", "dl-1", 8010, 8010, 8020)
	r, vs := cycleRun(t, h, Options{})
	assert.Empty(t, vs)
	assert.Equal(t, 0, r.Cycles)
}

func TestCycle_UncertainHoldsAndWaitsAreNotJudged(t *testing.T) {
	// b's Lost() was last seen open at 300 ms: after that its hold of dl-1
	// is uncertain (its lease may have lapsed), so no cycle lasts.
	h := twoHolders().
		acq("b", "dl-0", "X", 200, 8000, history.Fail).
		rel("b", "dl-1", 300, 8010, 8020).
		acq("a", "dl-1", "X", 200, 8000, history.Fail).
		rel("a", "dl-0", 8010, 8010, 8020)
	r, vs := cycleRun(t, h, Options{})
	assert.Empty(t, vs)
	assert.LessOrEqual(t, r.LongestCycle, 100*time.Millisecond)
}

func TestCycle_BoundOption(t *testing.T) {
	_, vs := cycleRun(t, pairCycle(1500), Options{CycleBound: 500 * time.Millisecond})
	assert.Len(t, vs, 1)
	_, err := Records(nil, nil, Options{CycleBound: -time.Second})
	assert.ErrorContains(t, err, "must not be negative")
}

func TestLongestOutside(t *testing.T) {
	s := func(a, b int64) Span { return Span{From: ms(a), To: ms(b)} }
	d := func(n int64) time.Duration { return time.Duration(ms(n)) }
	assert.Equal(t, d(10000), longestOutside(0, ms(10000), nil))
	assert.Equal(t, d(4000), longestOutside(0, ms(10000), []Span{s(4000, 1000)}))
	assert.Equal(t, d(0), longestOutside(ms(1000), ms(2000), []Span{s(0, 100)}))
	// Faults cover 3–10 s and 14–19 s (each 5 s past its heal).
	assert.Equal(t, d(4000), longestOutside(0, ms(20000), []Span{s(3000, 4000), s(4500, 5000), s(14000, 14000)}))
}

func checkersOf(vs []Violation, name string) []Violation {
	var out []Violation
	for _, v := range vs {
		if v.Checker == name {
			out = append(out, v)
		}
	}
	return out
}
