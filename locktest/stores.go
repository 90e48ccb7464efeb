package locktest

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
)

// errDeleteFailed is what a failDeletes store returns for the deletes it was
// told to fail.
var errDeleteFailed = errors.New("locktest: delete failed on purpose")

// deleteGate is a store whose next Delete, once armed, waits until the test
// opens the gate: it holds an Unlock inside its store request for as long
// as the test needs, without any wall-clock sleep.
type deleteGate struct {
	lockstep.Store
	mu      sync.Mutex
	armed   bool
	entered chan struct{} // closed when the armed Delete arrived
	open    chan struct{} // closed by the test to let it through
}

func newDeleteGate(s lockstep.Store) *deleteGate {
	return &deleteGate{Store: s, entered: make(chan struct{}), open: make(chan struct{})}
}

func (g *deleteGate) arm() {
	g.mu.Lock()
	g.armed = true
	g.mu.Unlock()
}

func (g *deleteGate) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	g.mu.Lock()
	armed := g.armed
	g.armed = false
	g.mu.Unlock()
	if armed {
		close(g.entered)
		<-g.open
	}
	return g.Store.Delete(ctx, table, row, ts, columns...)
}

// failDeletes is a store that counts Deletes and fails the one numbered
// fail (1-based, counted from reset), applying nothing.
type failDeletes struct {
	lockstep.Store
	mu    sync.Mutex
	n     int
	fail  int
	tried int // deletes failed so far
}

func (f *failDeletes) reset(fail int) {
	f.mu.Lock()
	f.n, f.fail, f.tried = 0, fail, 0
	f.mu.Unlock()
}

// count returns the deletes since reset and how many of them failed.
func (f *failDeletes) count() (deletes, failed int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n, f.tried
}

func (f *failDeletes) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	f.mu.Lock()
	f.n++
	fail := f.n == f.fail
	if fail {
		f.tried++
	}
	f.mu.Unlock()
	if fail {
		return errDeleteFailed
	}
	return f.Store.Delete(ctx, table, row, ts, columns...)
}

// errPaused is what a drawGate returns for the writes to the lock's row
// while a draw is stalled: the process is paused.
var errPaused = errors.New("locktest: process paused")

// errDrawFailed is what a drawGate returns for the global time requests it
// was told to fail.
var errDrawFailed = errors.New("locktest: global time request failed on purpose")

// drawGate is a store that can stall or fail the requests of the global time
// table (clock.DefaultGlobalTable), where fencing tokens are drawn, and so
// play a process paused in the middle of its draw: once armed, the next
// write of the global time waits until the test opens the gate, and while it
// waits every Put to the lock id's row fails, so the holder's renewals never
// land and its cells expire. No wall-clock sleep is involved.
type drawGate struct {
	lockstep.Store
	id string

	mu      sync.Mutex
	armed   bool          // the next global write stalls
	paused  bool          // a global write is stalled: puts to id's row fail
	failing int           // global requests still to fail; -1: all
	entered chan struct{} // closed when the armed write arrived
	open    chan struct{} // closed by the test to let it through
}

func newDrawGate(s lockstep.Store, id string) *drawGate {
	return &drawGate{Store: s, id: id, entered: make(chan struct{}), open: make(chan struct{})}
}

// arm makes the next write of the global time stall until release.
func (g *drawGate) arm() {
	g.mu.Lock()
	g.armed = true
	g.mu.Unlock()
}

// release lets the stalled write through and ends the pause.
func (g *drawGate) release() {
	g.mu.Lock()
	g.paused = false
	g.mu.Unlock()
	close(g.open)
}

// fail makes the next n requests to the global time table fail, all of them
// if n < 0.
func (g *drawGate) fail(n int) {
	g.mu.Lock()
	g.failing = n
	g.mu.Unlock()
}

// global decides the fate of a global time request: stall (for a write of an
// armed gate) or fail.
func (g *drawGate) global(ctx context.Context, write bool) error {
	g.mu.Lock()
	if g.failing != 0 {
		if g.failing > 0 {
			g.failing--
		}
		g.mu.Unlock()
		return errDrawFailed
	}
	stall := write && g.armed
	if stall {
		g.armed, g.paused = false, true
	}
	g.mu.Unlock()
	if stall {
		close(g.entered)
		select {
		case <-g.open:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (g *drawGate) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	if table == clock.DefaultGlobalTable {
		if err := g.global(ctx, true); err != nil {
			return err
		}
		return g.Store.Put(ctx, table, row, cells...)
	}
	g.mu.Lock()
	paused := g.paused && row == g.id
	g.mu.Unlock()
	if paused {
		return errPaused
	}
	return g.Store.Put(ctx, table, row, cells...)
}

// PutDelete is Put's, for a store that writes cells and tombstones in one
// request (lockstep.Mutator); over one that cannot, it sends nothing and
// says so, as the interface asks of a wrapper.
func (g *drawGate) PutDelete(ctx context.Context, table, row string, ts int64, columns []string, cells ...lockstep.Cell) error {
	m, ok := g.Store.(lockstep.Mutator)
	if !ok {
		return fmt.Errorf("locktest: %T writes no cells and tombstones together: %w", g.Store, errors.ErrUnsupported)
	}
	g.mu.Lock()
	paused := g.paused && row == g.id
	g.mu.Unlock()
	if paused {
		return errPaused
	}
	return m.PutDelete(ctx, table, row, ts, columns, cells...)
}

func (g *drawGate) Read(ctx context.Context, table, row string, s lockstep.Slice) ([]lockstep.Cell, error) {
	if table == clock.DefaultGlobalTable {
		if err := g.global(ctx, false); err != nil {
			return nil, err
		}
	}
	return g.Store.Read(ctx, table, row, s)
}
