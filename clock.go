package lockstep

import (
	"context"
	"time"
)

// Clock is the only source of time and waiting the algorithms use, so that a
// simulator can control both. Implementations are safe for concurrent use.
type Clock interface {
	// Now returns the current time in microseconds since the Unix epoch.
	Now() int64
	// Sleep waits for d or until ctx is done, whichever comes first, and
	// returns ctx.Err() in the latter case. A non-positive d returns at once
	// (still reporting a done ctx).
	Sleep(ctx context.Context, d time.Duration) error
}

// Micros converts a duration to whole microseconds.
func Micros(d time.Duration) int64 { return d.Microseconds() }
