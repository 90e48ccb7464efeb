package migration

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// Timings of the tests: short, so virtual time moves little.
const (
	testTTL       = 6 * time.Second
	testCensusTTL = 6 * time.Second
)

// switchFlag is a FlagSource a test flips at will.
type switchFlag struct{ m atomic.Uint32 }

func flagOf(m lockstep.Mode) *switchFlag {
	f := &switchFlag{}
	f.set(m)
	return f
}

func (f *switchFlag) set(m lockstep.Mode) { f.m.Store(uint32(m)) }

func (f *switchFlag) Mode(context.Context) (lockstep.Mode, error) {
	return lockstep.Mode(f.m.Load()), nil
}

func testOptions(seed uint64) *Options {
	return &Options{
		Queue:      &queuelock.Options{TTL: testTTL, Renew: time.Second, Poll: 10 * time.Millisecond},
		Legacy:     &shadowlock.Options{TTL: testTTL, Renew: time.Second, Rand: rand.New(rand.NewPCG(seed, 7))},
		CensusTTL:  testCensusTTL,
		Host:       "testhost",
		Version:    "v-test",
		PhaseCache: 100 * time.Millisecond,
	}
}

// newProcess starts a Locker for process on store and closes it at cleanup.
func newProcess(t *testing.T, store lockstep.Store, process string, flag FlagSource) *Locker {
	t.Helper()
	l, err := New(store, flag, withIdentity(testOptions(uint64(len(process))), &clock.Local{}, process))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

func newController(t *testing.T, store lockstep.Store, drain time.Duration) *Controller {
	t.Helper()
	return newPlantedController(t, store, drain, nil)
}

// newPlantedController is newController with planted defects k (nil for
// none).
func newPlantedController(t *testing.T, store lockstep.Store, drain time.Duration, k *TestingKnobs) *Controller {
	t.Helper()
	c, err := NewController(store, &ControllerOptions{Drain: drain, Poll: 100 * time.Millisecond, TestingKnobs: k})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// setPhase moves the phase to target step by step, failing the test on a
// refusal.
func setPhase(t *testing.T, c *Controller, path ...lockstep.Mode) {
	t.Helper()
	for _, m := range path {
		if err := c.Set(context.Background(), m); err != nil {
			t.Fatalf("Set(%v): %v", m, err)
		}
	}
}

// lockCells returns every live cell of the lock tables for id.
func lockCells(t *testing.T, s lockstep.Store, id string) []lockstep.Cell {
	t.Helper()
	var out []lockstep.Cell
	for _, table := range []string{shadowlock.DefaultMainTable, shadowlock.DefaultShadowTable, queuelock.DefaultTable} {
		cs, err := s.Read(context.Background(), table, id, lockstep.Slice{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, cs...)
	}
	return out
}

// cutStore fails every write to one table while cut is set: a process whose
// census heartbeat cannot get through.
type cutStore struct {
	lockstep.Store
	table string
	cut   atomic.Bool
}

var errCut = errors.New("test: store cut")

func (c *cutStore) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	if c.cut.Load() && table == c.table {
		return errCut
	}
	return c.Store.Put(ctx, table, row, cells...)
}

func (c *cutStore) Delete(ctx context.Context, table, row string, ts int64, cols ...string) error {
	if c.cut.Load() && table == c.table {
		return errCut
	}
	return c.Store.Delete(ctx, table, row, ts, cols...)
}

// exclusion counts holders inside critical sections and a shared counter
// that is incremented non-atomically under the lock.
type exclusion struct {
	mu      sync.Mutex
	inside  int
	doubles int
	counter int
}

// increment runs one critical section: read the counter, hold for d, write
// it back, noting any overlap with another holder.
func (x *exclusion) increment(d time.Duration) {
	x.mu.Lock()
	x.inside++
	if x.inside > 1 {
		x.doubles++
	}
	v := x.counter
	x.mu.Unlock()
	time.Sleep(d)
	x.mu.Lock()
	x.counter = v + 1
	x.inside--
	x.mu.Unlock()
}

func newStore() *model.Store { return model.New(&clock.Local{}) }

// withIdentity returns a copy of o (nil: defaults) with the process's clock
// and id set.
func withIdentity(o *Options, clk lockstep.Clock, process string) *Options {
	var c Options
	if o != nil {
		c = *o
	}
	c.Clock, c.ProcessID = clk, process
	return &c
}
