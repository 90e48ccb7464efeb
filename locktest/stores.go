package locktest

import (
	"context"
	"errors"
	"sync"

	"github.com/lockstep-go/lockstep"
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
