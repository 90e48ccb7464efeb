package clock

import "github.com/lockstep-go/lockstep"

// Timestamps issues the write timestamps of one process: strictly increasing
// microseconds, max(now, last+1). A cell rewritten after its own delete (a
// retry, a renewal) must carry a timestamp above the tombstone's, or the
// tombstone wins the tie and the write silently disappears; issuing every
// write and delete timestamp of a process from one Timestamps guarantees it.
// Safe for concurrent use.
type Timestamps struct{ hlc HLC } // an HLC that observes nothing

// NewTimestamps returns a generator reading c.
func NewTimestamps(c lockstep.Clock) *Timestamps { return &Timestamps{hlc: HLC{local: c}} }

// Next returns a timestamp greater than every one returned before.
func (t *Timestamps) Next() int64 { return t.hlc.Now() }
