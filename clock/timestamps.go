package clock

import (
	"sync"

	"github.com/lockstep-go/lockstep"
)

// Timestamps issues the write timestamps of one process: strictly increasing
// microseconds, max(now, last+1). A cell rewritten after its own delete (a
// retry, a renewal) must carry a timestamp above the tombstone's, or the
// tombstone wins the tie and the write silently disappears; issuing every
// write and delete timestamp of a process from one Timestamps guarantees it.
// Safe for concurrent use.
type Timestamps struct {
	clock lockstep.Clock
	mu    sync.Mutex
	last  int64
}

// NewTimestamps returns a generator reading c.
func NewTimestamps(c lockstep.Clock) *Timestamps { return &Timestamps{clock: c} }

// Next returns a timestamp greater than every one returned before.
func (t *Timestamps) Next() int64 {
	now := t.clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if now <= t.last {
		now = t.last + 1
	}
	t.last = now
	return now
}
