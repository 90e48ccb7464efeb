package main

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// Seed 002's own measures, computed from the cells of the rmw scenario
// (BENCHMARKS.md §8 states each with the paper's section and equation):
//
//   - Tm, the total time of the run (§2.1 (1), eq. 2): rmwCell.total.
//   - F, the failed requests (§2.1 (2), eq. 3: F = Σp_i + Σq_i): the refused
//     uploads. A refused compare-and-set sends its user back to the download,
//     the paper's p_i; its q_i (an upload refused while another user's upload
//     is in progress on the same version, retried without a new download)
//     cannot happen, since a compare-and-set has no such moment.
//   - Co, the interactions of users with the system (§2.1 (4), eq. 6:
//     Co = n + Σp_i): one per operation plus one per restart (after a
//     refused upload, or one whose outcome is unknown).
//   - Br and Bw, the bandwidth (§2.1 (3), eqs. 4–5): the share of the n users
//     downloading, and uploading, at the same moment (100% when all n do).
//     The paper bounds them (1/n ≤ Br ≤ 100%, Bw = 1/n); the project reports
//     the peak and the mean while at least one request is in flight.
//   - the wait share (§4, last paragraph: "about 1.53%"): the users' mean
//     time waiting for their requests to be carried out, over Tm.
//   - At = Tm(a)/Tm(c), Af = F(c)/F(a), A = Af/At (§4, eqs. 9–11; A < 1: the
//     optimistic protocol c did better than the pessimistic a). A held lock
//     never refuses an upload, so F(a) is 0 by construction and the paper's
//     Af is undefined; the project's Af is the ratio of upload requests per
//     upload that succeeded, (U+F)/U of c over that of a: 1 + F(c)/U(c)
//     against a lock, 1 when neither failed, and F(c)/F(a)'s direction
//     whenever both fail.

// span is one request's time on the cell's clock, in microseconds:
// [from, to).
type span struct{ from, to int64 }

// occupancy returns the largest number of spans in flight at one moment,
// and their mean number over the time at least one is, each divided by n
// (the users). Spans of no length occupy no time and are not counted. No
// spans, or n ≤ 0, gives 0, 0.
func occupancy(spans []span, n int) (peak, mean float64) {
	type event struct {
		at    int64
		delta int
	}
	var events []event
	for _, s := range spans {
		if s.to > s.from {
			events = append(events, event{s.from, 1}, event{s.to, -1})
		}
	}
	if len(events) == 0 || n <= 0 {
		return 0, 0
	}
	// at one moment, ends before starts: a request that starts as another
	// ends is not in flight with it
	slices.SortFunc(events, func(x, y event) int {
		if x.at != y.at {
			return cmp.Compare(x.at, y.at)
		}
		return x.delta - y.delta
	})
	var cur, top int
	var busy, area int64
	for i, e := range events {
		if i > 0 && cur > 0 {
			dt := e.at - events[i-1].at
			busy += dt
			area += dt * int64(cur)
		}
		cur += e.delta
		top = max(top, cur)
	}
	return float64(top) / float64(n), float64(area) / float64(busy) / float64(n)
}

// rmwMeasures are one cell's measures of the paper.
type rmwMeasures struct {
	co             int64   // operations + restarts (eq. 6)
	coPerOp        float64 // co per operation
	brPeak, brMean float64 // downloads in flight / users (eq. 4)
	bwPeak, bwMean float64 // uploads in flight / users (eq. 5)
	waitShare      float64 // the users' mean wait over the total time (§4)
}

// measureRMW computes c's measures.
func measureRMW(c rmwCell) rmwMeasures {
	ops := int64(len(c.ops))
	m := rmwMeasures{co: ops + c.failures + c.unknown, waitShare: waitShare(c.waits, c.total)}
	if ops > 0 {
		m.coPerOp = float64(m.co) / float64(ops)
	}
	m.brPeak, m.brMean = occupancy(c.downSpans, c.users)
	m.bwPeak, m.bwMean = occupancy(c.upSpans, c.users)
	return m
}

// waitShare is the mean of the users' waits over total; 0 for no users or
// no time.
func waitShare(waits []time.Duration, total time.Duration) float64 {
	if len(waits) == 0 || total <= 0 {
		return 0
	}
	return float64(mean(waits)) / float64(total)
}

// rmwComparison is the paper's comparison of the optimistic protocol c with
// a pessimistic one a, on the same workload and users; NaN where a ratio is
// undefined.
type rmwComparison struct {
	at, af, a float64
}

// compareRMW computes At, Af and A of c against a (see the top of the file
// for the project's Af).
func compareRMW(a, c rmwCell) rmwComparison {
	r := rmwComparison{at: math.NaN(), af: math.NaN(), a: math.NaN()}
	if c.total > 0 {
		r.at = float64(a.total) / float64(c.total)
	}
	if a.uploads > 0 && c.uploads > 0 {
		r.af = attemptsPerUpload(c) / attemptsPerUpload(a)
	}
	if !math.IsNaN(r.at) && !math.IsNaN(r.af) {
		r.a = r.af / r.at
	}
	return r
}

// attemptsPerUpload is the upload requests a cell made per upload that
// succeeded: (U+F)/U, an upload of unknown outcome counted with F.
func attemptsPerUpload(c rmwCell) float64 {
	return float64(c.uploads+c.failures+c.unknown) / float64(c.uploads)
}
