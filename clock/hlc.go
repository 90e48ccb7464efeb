package clock

import (
	"context"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
)

// HLC is a hybrid logical clock in microseconds: Now returns
// max(local time, highest time observed + 1, last returned + 1).
//
// The queue lock names its cells with HLC times and feeds every queue time it
// reads to Observe. A process whose local clock lags therefore never names a
// cell at or below one it has already seen: it cannot cut in front of a waiter
// it knows about (docs/algorithms.md, Lemma 5 and section 4.10, refinement 2). Bypass is thus bounded by the
// skew between processes that have not yet read each other's cells. Safe for
// concurrent use.
type HLC struct {
	local lockstep.Clock
	mu    sync.Mutex
	high  int64 // highest time observed or issued
}

var _ lockstep.Clock = (*HLC)(nil)

// NewHLC returns a hybrid logical clock over local.
func NewHLC(local lockstep.Clock) *HLC { return &HLC{local: local} }

// Now returns a time above every time observed or returned before, and at
// least the local time.
func (h *HLC) Now() int64 {
	now := h.local.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if now <= h.high {
		now = h.high + 1
	}
	h.high = now
	return now
}

// Observe records a time read from another process.
func (h *HLC) Observe(t int64) {
	h.mu.Lock()
	if t > h.high {
		h.high = t
	}
	h.mu.Unlock()
}

// Elapsed returns the local clock's monotonic time.
func (h *HLC) Elapsed() int64 { return h.local.Elapsed() }

// Sleep waits as the local clock does.
func (h *HLC) Sleep(ctx context.Context, d time.Duration) error { return h.local.Sleep(ctx, d) }
