package main

import (
	"math"
	"testing"
	"time"
)

func TestSummarizePeers_HandoffsOnOneTimeLineAndDoubleGrants(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	// Two contenders alternating: acquired at 10, 20, 30, 40; each released
	// 1 ms after acquiring; so each handoff is 9 ms.
	r := peerRun{algorithm: algoNew, contenders: 2, duration: 2 * time.Second, procs: []procResult{
		{Waits: ms(1, 5), At: ms(10, 30), Released: ms(11, 31)},
		{Waits: ms(2, 3), At: ms(20, 40), Released: ms(21, 41)},
	}}
	s := summarizePeers(r)
	if s.acquisitions != 4 || s.throughput != 2 || s.overlaps != 0 {
		t.Fatalf("stats %+v", s)
	}
	if s.handoffP50 != 9*time.Millisecond || s.handoffP99 != 9*time.Millisecond {
		t.Fatalf("handoffs p50 %v p99 %v, want 9 ms", s.handoffP50, s.handoffP99)
	}
	if s.jain != 1 || s.maxWait != 5*time.Millisecond {
		t.Fatalf("jain %v max wait %v", s.jain, s.maxWait)
	}

	// The second contender returns from Lock at 10.5 ms, before the first
	// began to release at 11 ms: a double grant.
	r.procs[1].At[0], r.procs[1].Released[0] = 10500*time.Microsecond, 12*time.Millisecond
	if s := summarizePeers(r); s.overlaps != 1 {
		t.Fatalf("overlaps %d, want 1", s.overlaps)
	}

	// One contender holding three times as often as the other.
	r.procs[0] = procResult{At: ms(1, 2, 3, 4, 5, 6), Released: ms(1, 2, 3, 4, 5, 6)}
	if s := summarizePeers(r); math.Abs(s.jain-0.8) > 1e-9 { // (6+2)²/(2·(36+4))
		t.Fatalf("jain %v, want 0.8", s.jain)
	}
}
