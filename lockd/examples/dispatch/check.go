package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// span is one message's processing: from its group's grant to just before
// its unlock was sent, as the instance saw it.
type span struct {
	instance   int
	msg        message
	start, end time.Time
}

// recorder collects the spans of every instance.
type recorder struct {
	mu    sync.Mutex
	spans []span
}

func (r *recorder) add(s span) {
	r.mu.Lock()
	r.spans = append(r.spans, s)
	r.mu.Unlock()
}

// related reports whether keys a and b are the same resource or one is an
// ancestor of the other.
func related(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

// conflict reports whether two messages touch related keys.
func conflict(a, b message) bool {
	for _, x := range a.keys {
		for _, y := range b.keys {
			if related(x, y) {
				return true
			}
		}
	}
	return false
}

// verdict is what the spans show.
type verdict struct {
	messages   int
	overlaps   int // pairs of conflicting messages processed at once
	outOfOrder int // conflicting messages of one instance, the later one started before the earlier ended
	mostAtOnce int
	kinds      map[string]int
}

func (r *recorder) judge() verdict {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := verdict{messages: len(r.spans), kinds: map[string]int{}}
	for i, a := range r.spans {
		v.kinds[a.msg.kind]++
		for _, b := range r.spans[i+1:] {
			if !conflict(a.msg, b.msg) {
				continue
			}
			if a.start.Before(b.end) && b.start.Before(a.end) {
				v.overlaps++
			}
			if a.instance == b.instance {
				first, second := a, b
				if b.msg.seq < a.msg.seq {
					first, second = b, a
				}
				if second.start.Before(first.end) {
					v.outOfOrder++
				}
			}
		}
	}
	// the most spans open at once: sweep their starts and ends
	type edge struct {
		at    time.Time
		delta int
	}
	var edges []edge
	for _, s := range r.spans {
		edges = append(edges, edge{s.start, 1}, edge{s.end, -1})
	}
	slices.SortFunc(edges, func(x, y edge) int {
		if c := x.at.Compare(y.at); c != 0 {
			return c
		}
		return x.delta - y.delta // an end before a start at the same instant
	})
	open := 0
	for _, e := range edges {
		open += e.delta
		v.mostAtOnce = max(v.mostAtOnce, open)
	}
	return v
}

// report prints the verdict and fails when a check does.
func (r *recorder) report(out io.Writer, c *config) error {
	v := r.judge()
	fmt.Fprintf(out, "processed %d messages (%d deposits, %d conversions, %d rate updates, %d audits) on %d instances × %d workers\n",
		v.messages, v.kinds["deposit"], v.kinds["convert"], v.kinds["rate"], v.kinds["audit"], c.instances, c.workers)
	fmt.Fprintf(out, "conflicting messages processed at once: %d\n", v.overlaps)
	fmt.Fprintf(out, "conflicting messages of one instance out of delivery order: %d\n", v.outOfOrder)
	fmt.Fprintf(out, "most messages in process at once: %d\n", v.mostAtOnce)
	if want := c.instances * c.messages; v.messages != want {
		return fmt.Errorf("%d messages processed, want %d", v.messages, want)
	}
	if v.overlaps != 0 || v.outOfOrder != 0 {
		return fmt.Errorf("the checks failed: %d overlaps, %d out of order", v.overlaps, v.outOfOrder)
	}
	return nil
}
