package main

import (
	"math"
	"testing"
	"time"
)

func TestPercentile_NearestRankOnKnownInputs(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	for _, tc := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one value", ms(7), 99, 7 * time.Millisecond},
		{"median of five", ms(1, 2, 3, 4, 5), 50, 3 * time.Millisecond},
		{"median of four is the lower middle", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p99 of 1..100", hundred, 99, 99 * time.Millisecond},
		{"p100 is the max", hundred, 100, 100 * time.Millisecond},
		{"p1 of 1..100", hundred, 1, 1 * time.Millisecond},
		{"p99 of ten is the max", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10 * time.Millisecond},
	} {
		if got := percentile(tc.sorted, tc.p); got != tc.want {
			t.Errorf("%s: percentile(p%v) = %v, want %v", tc.name, tc.p, got, tc.want)
		}
	}
}

func TestJain_IsOneForEqualSharesAndOneOverNForATakeover(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{5, 5, 5}, 1},
		{[]float64{9, 0, 0}, 1.0 / 3},
		{[]float64{1, 0, 0, 0, 0}, 0.2},
		{[]float64{1, 2}, 0.9}, // (3)² / (2·5)
		{[]float64{3, 1, 1, 1}, 36.0 / 48},
		{nil, 1},
		{[]float64{0, 0}, 1},
	} {
		if got := jain(tc.xs); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("jain(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}

func TestContendedShares_CountsOnlyUntilTheFirstProcessFinished(t *testing.T) {
	s := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Second
		}
		return out
	}
	// p0 re-wins three times while p1 waits, then p1 takes its three after
	// p0 finished at t=3: in the window up to t=3 p0 had all of it.
	got := contendedShares([][]time.Duration{s(1, 2, 3), s(4, 5, 6)})
	if got[0] != 3 || got[1] != 0 {
		t.Fatalf("shares %v, want [3 0]", got)
	}
	// Alternating, the window ends at p1's last (t=6): p0 counts 3 (1,3,5), p1 3.
	got = contendedShares([][]time.Duration{s(1, 3, 5, 7), s(2, 4, 6)})
	if got[0] != 3 || got[1] != 3 {
		t.Fatalf("shares %v, want [3 3]", got)
	}
	if got := contendedShares([][]time.Duration{s(1), nil}); got[0] != 0 || got[1] != 0 {
		t.Fatalf("a process without acquisitions: shares %v, want zeros", got)
	}
}

func TestSummarizeWaits_PoolsEveryProcess(t *testing.T) {
	s := summarizeWaits([][]time.Duration{
		{1 * time.Millisecond, 3 * time.Millisecond},
		{2 * time.Millisecond, 10 * time.Millisecond},
	})
	if s.n != 4 || s.mean != 4*time.Millisecond || s.p50 != 2*time.Millisecond || s.max != 10*time.Millisecond {
		t.Fatalf("summary %+v", s)
	}
	if s.ratio() != 2.5 {
		t.Fatalf("max/mean %v, want 2.5", s.ratio())
	}
	if (waitStats{}).ratio() != 0 {
		t.Fatal("max/mean of nothing is not 0")
	}
}
