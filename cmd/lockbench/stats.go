package main

import (
	"math"
	"slices"
	"sort"
	"time"
)

// percentile returns the p-th percentile (0 < p <= 100) of sorted by the
// nearest-rank method: the smallest value such that at least p% of the values
// are at or below it. sorted must be in ascending order; empty gives 0.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// mean returns the arithmetic mean of ds, 0 for none.
func mean(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

// jain is Jain's fairness index (Σx)²/(n·Σx²) of the shares xs: 1 when all
// are equal, 1/n when one takes everything. No shares, or all zero, is 1.
func jain(xs []float64) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum += x
		sq += x * x
	}
	if sq == 0 {
		return 1
	}
	return sum * sum / (float64(len(xs)) * sq)
}

// contendedShares returns how many acquisitions each process made while all
// of them were still contending: up to the moment the first process made its
// last acquisition. Over a whole seed run every process makes exactly K, so
// only this window tells a fair lock from one that lets a process re-win
// while the others wait. at holds per process the moments of its
// acquisitions, in order.
func contendedShares(at [][]time.Duration) []float64 {
	end := time.Duration(math.MaxInt64)
	for _, a := range at {
		if len(a) == 0 {
			return make([]float64, len(at)) // someone never got the lock
		}
		end = min(end, a[len(a)-1])
	}
	out := make([]float64, len(at))
	for i, a := range at {
		// a is ascending: count the acquisitions at or before end.
		out[i] = float64(sort.Search(len(a), func(k int) bool { return a[k] > end }))
	}
	return out
}

// waitStats are the acquisition-wait statistics of one run.
type waitStats struct {
	n                   int
	mean, p50, p99, max time.Duration
}

// ratio is max/mean, 0 when the mean is 0.
func (s waitStats) ratio() float64 {
	if s.mean <= 0 {
		return 0
	}
	return float64(s.max) / float64(s.mean)
}

// summarizeWaits computes waitStats over every wait of every process.
func summarizeWaits(perProcess [][]time.Duration) waitStats {
	var all []time.Duration
	for _, w := range perProcess {
		all = append(all, w...)
	}
	slices.Sort(all)
	s := waitStats{n: len(all), mean: mean(all), p50: percentile(all, 50), p99: percentile(all, 99)}
	if len(all) > 0 {
		s.max = all[len(all)-1]
	}
	return s
}
