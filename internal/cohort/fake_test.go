package cohort

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/model"
)

// store is a fake inner algorithm: one holder per id at a time, whatever
// the access, handed out in arrival order by a channel of one slot per id;
// it counts takes and releases and numbers owners.
type store struct {
	mu       sync.Mutex
	slots    map[string]chan struct{}
	takes    int
	releases int
	owners   int
	losses   []*held.Loss // per take, in order
	global   *clock.Global
	crowded  atomic.Bool // takes report held.Spec.Crowded: another waiter was in line
}

func newStore(g *clock.Global) *store { return &store{slots: map[string]chan struct{}{}, global: g} }

func (s *store) slot(id string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.slots[id]
	if c == nil {
		c = make(chan struct{}, 1)
		s.slots[id] = c
	}
	return c
}

func (s *store) Take(ctx context.Context, a *manager.Acquisition) (held.Spec, error) {
	c := s.slot(a.ID)
	if a.Try {
		select {
		case c <- struct{}{}:
		default:
			return held.Spec{}, lockstep.ErrLocked
		}
	} else {
		select {
		case c <- struct{}{}:
		case <-ctx.Done():
			return held.Spec{}, ctx.Err()
		}
	}
	var tok, last int64
	if s.global != nil {
		n := max(1, a.TokenBlock)
		t, err := s.global.Reserve(ctx, n)
		if err != nil {
			<-c
			return held.Spec{}, err
		}
		tok, last = t, t+int64(n)-1
	}
	loss := held.NewLoss()
	s.mu.Lock()
	s.takes++
	s.owners++
	owner := "o" + string(rune('0'+s.owners))
	s.losses = append(s.losses, loss)
	s.mu.Unlock()
	return held.Spec{ID: a.ID, Owner: owner, Mode: lockstep.ModeNew, Token: tok, TokenLast: last, Loss: loss,
		Crowded: s.crowded.Load(), Parts: []held.Part{&fakePart{s: s, slot: c}}}, nil
}

func (s *store) Close(context.Context) error { return nil }

func (s *store) counts() (takes, releases int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.takes, s.releases
}

type fakePart struct {
	s        *store
	slot     chan struct{}
	stopped  bool
	released bool
}

func (p *fakePart) Stop() bool { p.stopped = true; return false }
func (p *fakePart) Release(context.Context) (bool, error) {
	if p.released {
		return false, nil
	}
	p.released = true
	p.s.mu.Lock()
	p.s.releases++
	p.s.mu.Unlock()
	<-p.slot
	return true, nil
}
func (p *fakePart) Expired() bool { return false }

// fixture is a lock manager over the layer over a fake store, with fencing
// tokens from a global cell on a model store.
type fixture struct {
	s *store
	c *Algorithm
	m *manager.Locker
	g *clock.Global
}

func newFixture(t *testing.T, bound int, k *TestingKnobs) *fixture {
	t.Helper()
	return newFixtureOn(t, bound, k, model.New(&clock.Local{}))
}

// newFixtureOn is newFixture with the global time cell on gs.
func newFixtureOn(t *testing.T, bound int, k *TestingKnobs, gs lockstep.Store) *fixture {
	t.Helper()
	clk := &clock.Local{}
	g, err := clock.NewGlobal(gs, "", clk)
	require.NoError(t, err)
	s := newStore(g)
	c, err := New(s, Options{Bound: bound, Clock: clk, TestingKnobs: k})
	require.NoError(t, err)
	m, err := manager.NewLocker(c, manager.Config{Name: "test", Mode: lockstep.ModeNew, Clock: clk, Observer: lockstep.NopObserver{}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, m.Close(context.Background())) })
	return &fixture{s: s, c: c, m: m, g: g}
}

// lines returns how many ids have a line.
func (f *fixture) lines() int {
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	return len(f.c.lines)
}

// waiters returns how many wait in id's line.
func (f *fixture) waiters(id string) int {
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	if ln := f.c.lines[id]; ln != nil {
		return len(ln.waiters)
	}
	return 0
}

// countingStore counts the requests sent to the global time cell.
type countingStore struct {
	lockstep.Store
	requests atomic.Int32
}

func (f *countingStore) Put(ctx context.Context, t, r string, cs ...lockstep.Cell) error {
	f.requests.Add(1)
	return f.Store.Put(ctx, t, r, cs...)
}

func (f *countingStore) Read(ctx context.Context, t, r string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	f.requests.Add(1)
	return f.Store.Read(ctx, t, r, sl)
}
