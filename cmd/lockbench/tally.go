package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockstep-go/lockstep"
)

// tally counts the store requests made on one call path: the requests of
// one Lock, or of one Unlock. The path is marked by putting the tally into
// the ctx the caller passes to Lock or Unlock; every request the algorithm
// makes with that ctx (or a ctx derived from it, including
// context.WithoutCancel) is counted here. The lock algorithms make their
// requests one after another on the calling goroutine, so the count is the
// number of sequential round trips of the call. Requests made with another
// ctx — lease renewals, which run on the lease's own goroutines and
// context — are not counted in any tally (see countingStore.background).
//
// Some calls send requests side by side (a combined lock overlaps its two
// halves' requests), so a tally also keeps the call's sequential round
// trips: the longest chain of its requests each sent after the previous one
// returned (begin, sequential). A request sent while others are in flight
// adds to the count only if it is sent after every one of a longer chain
// has returned.
//
// A tally is safe for concurrent use.
type tally struct {
	puts, reads, deletes atomic.Int64

	mu           sync.Mutex
	ended, depth int64 // longest chain that has returned; longest chain sent
}

// total is the number of requests counted.
func (t *tally) total() int64 { return t.puts.Load() + t.reads.Load() + t.deletes.Load() }

// begin marks a request sent on the path; call the result when it returns.
// The request ends a chain one longer than the longest that had returned.
func (t *tally) begin() (returned func()) {
	t.mu.Lock()
	d := t.ended + 1
	t.depth = max(t.depth, d)
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		t.ended = max(t.ended, d)
		t.mu.Unlock()
	}
}

// sequential is the longest chain of the path's requests each sent after
// the previous one returned: its sequential round trips.
func (t *tally) sequential() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.depth
}

type tallyKey struct{}

// withTally returns ctx carrying t: requests made with the result count in
// t.
func withTally(ctx context.Context, t *tally) context.Context {
	return context.WithValue(ctx, tallyKey{}, t)
}

// tallyOf returns the tally ctx carries, or nil.
func tallyOf(ctx context.Context) *tally {
	t, _ := ctx.Value(tallyKey{}).(*tally)
	return t
}

// countingStore wraps a lockstep.Store and counts every request: into the
// tally its ctx carries, or into background when it carries none (renewals
// of held locks and of waiting queue places). It changes nothing else: the
// request and its result pass through untouched.
//
// A countingStore is safe for concurrent use if its inner store is.
type countingStore struct {
	inner      lockstep.Store
	clock      lockstep.Clock // times every request (slowestRequest); nil: none timed
	background atomic.Int64
	reads      atomic.Int64 // every Read, on any path

	mu        sync.Mutex
	slowest   int64 // µs: the longest request
	slowestAt int64 // µs on clock: when it began
}

// timed starts timing one request; call the result when it returns.
func (s *countingStore) timed() func() {
	if s.clock == nil {
		return func() {}
	}
	t0 := s.clock.Now()
	return func() {
		d := s.clock.Now() - t0
		s.mu.Lock()
		if d > s.slowest {
			s.slowest, s.slowestAt = d, t0
		}
		s.mu.Unlock()
	}
}

// resetSlowest forgets the requests timed so far (a warm-up's).
func (s *countingStore) resetSlowest() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slowest, s.slowestAt = 0, 0
}

// slowestRequest returns the longest request the store served and when it
// began (µs on its clock); 0, 0 when none was timed.
func (s *countingStore) slowestRequest() (time.Duration, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Duration(s.slowest) * time.Microsecond, s.slowestAt
}

var _ lockstep.Store = (*countingStore)(nil)

func (s *countingStore) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	if t := tallyOf(ctx); t != nil {
		t.puts.Add(1)
		defer t.begin()()
	} else {
		s.background.Add(1)
	}
	defer s.timed()()
	return s.inner.Put(ctx, table, row, cells...)
}

func (s *countingStore) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	if t := tallyOf(ctx); t != nil {
		t.deletes.Add(1)
		defer t.begin()()
	} else {
		s.background.Add(1)
	}
	defer s.timed()()
	return s.inner.Delete(ctx, table, row, ts, columns...)
}

// PutDelete counts as one delete: a release's request (the handoff of
// queuelock.Options.Handoff), or, outside a tallied call, a holder's first
// renewal, which gives its queue cell up. It fails, sending nothing, with
// an error wrapping errors.ErrUnsupported if the inner store cannot write
// and delete in one request (the Lockers then send a Put and a Delete).
func (s *countingStore) PutDelete(ctx context.Context, table, row string, ts int64, columns []string, cells ...lockstep.Cell) error {
	m, ok := s.inner.(lockstep.Mutator)
	if !ok {
		return fmt.Errorf("lockbench: the store cannot write and delete in one request (lockstep.Mutator): %w", errors.ErrUnsupported)
	}
	if t := tallyOf(ctx); t != nil {
		t.deletes.Add(1)
		defer t.begin()()
	} else {
		s.background.Add(1)
	}
	defer s.timed()()
	return m.PutDelete(ctx, table, row, ts, columns, cells...)
}

func (s *countingStore) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	s.reads.Add(1)
	if t := tallyOf(ctx); t != nil {
		t.reads.Add(1)
		defer t.begin()()
	} else {
		s.background.Add(1)
	}
	defer s.timed()()
	return s.inner.Read(ctx, table, row, sl)
}
