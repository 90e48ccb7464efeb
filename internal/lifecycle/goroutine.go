// Go and Resumed are how the algorithms start their background goroutines
// and resume after an in-process hand-off, so that a simulator can order
// them.
//
// On a real clock both are what they look like: Go is the go statement and
// Resumed does nothing. A simulated clock (model/sim) implements the two
// optional methods below: it names every goroutine by its place in the
// process's tree of goroutines (the n-th goroutine started by goroutine g),
// holds a new goroutine until its scheduler lets it start, and holds a
// goroutine that another one woke until its scheduler lets it go on. Then
// only one simulated goroutine runs at a time and the scheduler orders them
// by name, so one seed gives one run whatever the Go runtime does.
//
// The rule for the algorithms follows: a goroutine that can reach the store
// or the clock is started with Go, and a goroutine that waited on a channel
// closed by another goroutine of the process calls Resumed before it touches
// anything shared.

package lifecycle

import (
	"context"

	"github.com/lockstep-go/lockstep"
)

// spawner is a Clock that starts goroutines itself.
type spawner interface {
	Go(f func())
}

// resumer is a Clock that wants to know when a goroutine woken by another
// goes on.
type resumer interface {
	Resumed(ctx context.Context)
}

// Go runs f on a new goroutine, started by c if c can.
func Go(c lockstep.Clock, f func()) {
	if sp, ok := c.(spawner); ok {
		sp.Go(f)
		return
	}
	go f()
}

// Resumed tells c that the calling goroutine was woken by another goroutine
// of its process (a channel it waited on was closed) and is about to go on.
func Resumed(ctx context.Context, c lockstep.Clock) {
	if r, ok := c.(resumer); ok {
		r.Resumed(ctx)
	}
}
