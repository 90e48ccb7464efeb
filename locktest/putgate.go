package locktest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
)

// PutGate is a store whose writes (Put, PutDelete) to the tables it gates
// wait, while it is shut, until it is opened again: a test holds a
// process's requests in flight at a chosen point, as the evidence tests do
// with a claim and the token draw sent beside it. Blocked receives the
// table of each write that waits.
type PutGate struct {
	lockstep.Store
	tables  []string
	Blocked chan string

	mu   sync.Mutex
	open chan struct{} // nil while open
}

// NewPutGate gates the writes of s to tables (every table if none).
func NewPutGate(s lockstep.Store, tables ...string) *PutGate {
	return &PutGate{Store: s, tables: tables, Blocked: make(chan string, 16)}
}

// Shut makes the gated writes wait from now on.
func (g *PutGate) Shut() {
	g.mu.Lock()
	g.open = make(chan struct{})
	g.mu.Unlock()
}

// Reopen lets the waiting writes, and every later one, through.
func (g *PutGate) Reopen() {
	g.mu.Lock()
	close(g.open)
	g.open = nil
	g.mu.Unlock()
}

// AwaitBlocked waits until a write to each of tables is held at the gate,
// or within passes.
func (g *PutGate) AwaitBlocked(within time.Duration, tables ...string) error {
	seen := map[string]bool{}
	timeout := time.After(within)
	for {
		missing := slices.DeleteFunc(slices.Clone(tables), func(t string) bool { return seen[t] })
		if len(missing) == 0 {
			return nil
		}
		select {
		case tb := <-g.Blocked:
			seen[tb] = true
		case <-timeout:
			return fmt.Errorf("locktest: no write to %v reached the gate within %v (saw %v)", missing, within, seen)
		}
	}
}

// wait holds a write to table while the gate is shut.
func (g *PutGate) wait(ctx context.Context, table string) error {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	if open == nil || len(g.tables) > 0 && !slices.Contains(g.tables, table) {
		return nil
	}
	g.Blocked <- table
	select {
	case <-open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *PutGate) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	if err := g.wait(ctx, table); err != nil {
		return err
	}
	return g.Store.Put(ctx, table, row, cells...)
}

// PutDelete waits as Put does, then forwards to the store beneath if it is
// a lockstep.Mutator, and says so if not, as the interface asks of a
// wrapper.
func (g *PutGate) PutDelete(ctx context.Context, table, row string, ts int64, columns []string, cells ...lockstep.Cell) error {
	m, ok := g.Store.(lockstep.Mutator)
	if !ok {
		return fmt.Errorf("locktest: %T writes no cells and tombstones together: %w", g.Store, errors.ErrUnsupported)
	}
	if err := g.wait(ctx, table); err != nil {
		return err
	}
	return m.PutDelete(ctx, table, row, ts, columns, cells...)
}
