package lockstep

import (
	"context"
	"time"
)

// Clock is the only source of time and waiting the algorithms use, so that a
// simulator can control both. Implementations are safe for concurrent use.
//
// A Clock tells two kinds of time that are never mixed:
//
//   - wall time (Now) names queue cells and stamps writes. It is what other
//     processes and Cassandra compare against, and it may step when NTP or
//     an operator sets the system clock;
//   - elapsed time (Elapsed, and the durations Sleep waits) measures how long
//     since: lease deadlines, claim-in-time checks, census deadlines, waits.
//     It never steps, so a wall-clock step can neither stretch a lease nor
//     cut one short.
type Clock interface {
	// Now returns the current wall-clock time in microseconds since the
	// Unix epoch.
	Now() int64
	// Elapsed returns monotonic time in microseconds since an origin that
	// is fixed for the Clock's life and otherwise arbitrary: only the
	// difference of two readings means anything. It never decreases and is
	// unaffected by steps of the wall clock.
	Elapsed() int64
	// Sleep waits for d of elapsed time or until ctx is done, whichever comes
	// first, and returns ctx.Err() in the latter case. A non-positive d
	// returns at once (still reporting a done ctx).
	Sleep(ctx context.Context, d time.Duration) error
}
