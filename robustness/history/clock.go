package history

import "time"

// Clock gives timestamps in nanoseconds since a shared epoch, advancing with
// the monotonic clock only (see the package documentation).
// The zero value is not usable; build one with NewClock. Safe for concurrent
// use.
type Clock struct {
	origin time.Time // carries a monotonic reading
	offset int64     // ns from the epoch to origin, from one wall-clock read
}

// NewClock places the caller's monotonic clock on the base epochUnixNS (Unix
// nanoseconds, the same for every process of a run). Zero means "now": the
// clock then starts at 0.
func NewClock(epochUnixNS int64) *Clock {
	now := time.Now()
	if epochUnixNS == 0 {
		epochUnixNS = now.UnixNano()
	}
	return &Clock{origin: now, offset: now.UnixNano() - epochUnixNS}
}

// Now returns nanoseconds since the epoch.
func (c *Clock) Now() int64 { return c.offset + int64(time.Since(c.origin)) }

// At returns nanoseconds since the epoch at t, which must carry a
// monotonic reading (a time.Now() value of this process).
func (c *Clock) At(t time.Time) int64 { return c.offset + int64(t.Sub(c.origin)) }
