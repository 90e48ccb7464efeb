package main

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model"
)

// latencyStreams are the seed scenario's latency streams on the sim
// backend: one per table, shared by every process. A combined lock sends
// some requests side by side, each to its own table (docs/algorithms.md, section 6.1); with
// one stream for all requests, which of the two drew first — the Go
// runtime's choice under runVirtual, the goroutines' labels under model/sim —
// would change the latencies both got. Per table, requests of one process
// sent side by side draw the same latencies whatever the order, while
// processes still share each stream (so the order in which the scheduler
// lets them move still matters, as virtual_sim_test.go's negative control
// needs).
type latencyStreams struct {
	seed uint64

	mu sync.Mutex
	m  map[string]*rand.Rand
}

// newLatencyStreams returns the streams of a run of p processes.
func newLatencyStreams(seed uint64, p int) *latencyStreams {
	return &latencyStreams{seed: seed ^ uint64(p)<<48, m: map[string]*rand.Rand{}}
}

func (l *latencyStreams) stream(table string) *rand.Rand {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r, ok := l.m[table]; ok {
		return r
	}
	h := fnv.New32a()
	h.Write([]byte(table))
	r := rand.New(&lockedSource{src: rand.NewPCG(l.seed, uint64(h.Sum32()))})
	l.m[table] = r
	return r
}

// lockedSource is a rand.Source safe for the processes sharing it.
type lockedSource struct {
	mu  sync.Mutex
	src rand.Source
}

func (s *lockedSource) Uint64() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.src.Uint64()
}

// tableLatency is one process's view of the model store: every request
// waits a latency in [min, max] on clk (model.Faulty), drawn from its
// table's stream.
type tableLatency struct {
	inner    lockstep.Store
	clk      lockstep.Clock
	min, max time.Duration
	streams  *latencyStreams

	mu     sync.Mutex
	faulty map[string]*model.Faulty
}

// store returns one process's view of inner.
func (l *latencyStreams) store(inner lockstep.Store, clk lockstep.Clock, min, max time.Duration) *tableLatency {
	return &tableLatency{inner: inner, clk: clk, min: min, max: max, streams: l, faulty: map[string]*model.Faulty{}}
}

func (s *tableLatency) of(table string) lockstep.Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.faulty[table]; ok {
		return f
	}
	f, err := model.NewFaulty(s.inner, model.FaultConfig{MinLatency: s.min, MaxLatency: s.max, Clock: s.clk, Rand: s.streams.stream(table)})
	if err != nil {
		panic(err) // the bounds were checked by the caller (run1)
	}
	s.faulty[table] = f
	return f
}

func (s *tableLatency) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	return s.of(table).Put(ctx, table, row, cells...)
}

func (s *tableLatency) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	return s.of(table).Delete(ctx, table, row, ts, columns...)
}

func (s *tableLatency) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	return s.of(table).Read(ctx, table, row, sl)
}
