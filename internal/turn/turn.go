// Package turn queues the goroutines of one process that contend for the same
// lock id, first come first served, so that only one of them at a time talks
// to the store about that id (queuelock/doc.go, § Progress, refinement 6). The others wait
// in-process without reading or writing anything remotely: a hot id then costs
// the cluster one contender per process instead of one per goroutine, and
// in-process order is exactly arrival order.
//
// A key's state lives only while its turn is held or awaited: the last
// Release (or a cancelled last waiter) forgets the key, and the map itself
// once no key is left, so a process locking ever new ids keeps no memory of
// the ones it released.
package turn

import (
	"context"
	"sync"
)

// Turns hands out, per key, one turn at a time in FIFO order. The zero value
// is ready to use; it is safe for concurrent use.
type Turns struct {
	mu   sync.Mutex
	keys map[string]*line
}

type line struct {
	waiters []chan struct{} // closed when that waiter is given the turn
}

// Acquire waits for the turn on key. On success the caller holds the turn
// until Release. If ctx ends first, Acquire returns ctx.Err() and holds
// nothing: a turn granted concurrently with the cancellation is passed on.
func (t *Turns) Acquire(ctx context.Context, key string) error {
	t.mu.Lock()
	if t.keys == nil {
		t.keys = make(map[string]*line)
	}
	l, busy := t.keys[key]
	if !busy {
		t.keys[key] = &line{}
		t.mu.Unlock()
		return nil
	}
	ready := make(chan struct{})
	l.waiters = append(l.waiters, ready)
	t.mu.Unlock()

	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		t.mu.Lock()
		defer t.mu.Unlock()
		select {
		case <-ready: // granted while we were giving up: pass it on
			t.passLocked(key, l)
		default:
			for i, w := range l.waiters {
				if w == ready {
					l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
					break
				}
			}
		}
		return ctx.Err()
	}
}

// TryAcquire takes the turn on key only if nobody holds it or waits for it.
func (t *Turns) TryAcquire(key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.keys == nil {
		t.keys = make(map[string]*line)
	}
	if _, busy := t.keys[key]; busy {
		return false
	}
	t.keys[key] = &line{}
	return true
}

// Release gives the turn on key to the longest waiter, if any. It must be
// called exactly once per successful Acquire or TryAcquire.
func (t *Turns) Release(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := t.keys[key]
	if !ok {
		panic("turn: Release of a key not held")
	}
	t.passLocked(key, l)
}

func (t *Turns) passLocked(key string, l *line) {
	if len(l.waiters) == 0 {
		delete(t.keys, key)
		if len(t.keys) == 0 {
			// A Go map keeps its buckets when emptied: drop it, so that a
			// burst of distinct ids leaves nothing behind once released.
			t.keys = nil
		}
		return
	}
	next := l.waiters[0]
	l.waiters = l.waiters[1:]
	close(next)
}

// Busy reports whether the turn on key is held or awaited.
func (t *Turns) Busy(key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, busy := t.keys[key]
	return busy
}

// Len reports how many keys are held; for tests and metrics.
func (t *Turns) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.keys)
}
