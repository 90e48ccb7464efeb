// Mutex is the mutual exclusion every lock handle's Unlock uses so
// that concurrent calls serialize (lockstep.Lock's contract): a call waits
// for the one in flight, bounded by its own ctx.
//
// It is a one-slot channel rather than a sync.Mutex for two reasons: the wait
// can end with ctx, and a goroutine waiting on a channel is durably blocked
// in a testing/synctest bubble, so virtual time and synctest.Wait still work
// while one Unlock waits for another's store request.

package lifecycle

import (
	"context"
	"sync"

	"github.com/lockstep-go/lockstep"
)

// Mutex is held by at most one goroutine at a time. The zero value is ready
// to use; it is safe for concurrent use.
type Mutex struct {
	once sync.Once
	slot chan struct{}
}

func (m *Mutex) init() { m.once.Do(func() { m.slot = make(chan struct{}, 1) }) }

// Lock takes m, waiting for its holder to Unlock. If ctx ends first, Lock
// returns ctx.Err() and holds nothing. A free m is taken even if ctx is
// already done, so that a caller with a spent ctx still learns what needs no
// store request (such as "already released"). A wait that another goroutine
// ended goes on through c (Resumed); c may be nil.
func (m *Mutex) Lock(ctx context.Context, c lockstep.Clock) error {
	m.init()
	select {
	case m.slot <- struct{}{}:
		return nil
	default:
	}
	select {
	case m.slot <- struct{}{}:
		Resumed(ctx, c)
		return nil
	case <-ctx.Done():
		Resumed(ctx, c)
		return ctx.Err()
	}
}

// Unlock releases m, which the caller must hold.
func (m *Mutex) Unlock() {
	m.init()
	select {
	case <-m.slot:
	default:
		panic("lifecycle: Unlock of an unlocked Mutex")
	}
}
