package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep/robustness/nemesis"
)

// The skew sweep: for each TTL and each server skew, a
// legacy fleet runs with node 2's clock ahead by the skew for the whole
// segment, while faults that stall renewals (isolate, one-way, loss,
// pause-node) let leases run to their end. Node 2 then expires the holders'
// cells early for every read it coordinates; the checkers say whether a
// second holder got in. Nothing is expected: the table records what was
// found.

// sweepKinds stall renewals without touching clocks or killing anything.
var sweepKinds = []nemesis.Kind{nemesis.KindIsolate, nemesis.KindOneWay, nemesis.KindLoss, nemesis.KindPauseNode}

// DefaultSweep is the table of ROBUSTNESS.md: one skew below and one above
// the predicted edge (TTL − 1 s + MaxServerSkew)/2 with the library's
// default MaxServerSkew of 1 s, for TTL 4 s (the smallest it accepts with
// that skew; 3 s is refused), 5, 10 and 30 s.
const DefaultSweep = "4s:1500ms,3500ms;5s:2s,4500ms;10s:4500ms,9s;30s:14s,17s"

// parseSweep parses "TTL:skew,skew;TTL:skew" into sweep segments.
func parseSweep(s string) ([]segment, error) {
	var segs []segment
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		ttlS, skews, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("--skew-sweep %q: want TTL:skew,skew;TTL:skew", part)
		}
		ttl, err := time.ParseDuration(ttlS)
		if err != nil || ttl < time.Second || ttl%time.Second != 0 {
			return nil, fmt.Errorf("--skew-sweep: TTL %q: give whole seconds", ttlS)
		}
		for _, sk := range strings.Split(skews, ",") {
			skew, err := time.ParseDuration(strings.TrimSpace(sk))
			if err != nil || skew <= 0 {
				return nil, fmt.Errorf("--skew-sweep: skew %q: give a positive duration", sk)
			}
			segs = append(segs, segment{
				name:   fmt.Sprintf("skew-t%ds-s%dms", int(ttl.Seconds()), skew.Milliseconds()),
				modes:  []string{"legacy"},
				phase:  "legacy",
				ttl:    ttl,
				locks:  2,
				kinds:  sweepKinds,
				skew:   skew,
				length: max(45*time.Second, 4*ttl+10*time.Second),
				// Critical sections as long as the TTL: a holder is still
				// inside when its lease runs out, so a cell that expires
				// early on the skewed node can let a second holder in.
				hold:    ttl,
				expect:  expectMeasure,
				control: true, // not a fleet: its findings are the measurement
			})
		}
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("--skew-sweep %q: no TTL:skew pair", s)
	}
	return segs, nil
}

// sweepTable prints the measured table: per TTL the largest skew with no
// violation and the first with one.
func (r *runner) sweepTable(res []result) {
	fmt.Fprintf(r.out, "skew sweep (MaxServerSkew assumed %v, seed %d):\n", r.o.maxSkew, r.o.seed)
	fmt.Fprintf(r.out, "  %-6s %-8s %-9s %-10s %-8s %s\n", "TTL", "skew", "predicted", "operations", "violations", "checkers")
	for _, s := range res {
		pred := (s.seg.ttl - time.Second + r.o.maxSkew) / 2
		verdict := "safe"
		if s.seg.skew > pred {
			verdict = "unsafe"
		}
		var cs []string
		seen := map[string]bool{}
		for _, f := range s.findings {
			if !seen[f.checker] {
				seen[f.checker] = true
				cs = append(cs, f.checker)
			}
		}
		fmt.Fprintf(r.out, "  %-6v %-8v %-9s %-10d %-10d %s\n", s.seg.ttl, s.seg.skew, verdict, s.ops, len(s.findings), strings.Join(cs, ","))
	}
}
