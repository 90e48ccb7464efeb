package cohort

import (
	"context"
	"errors"

	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/manager"
)

// errNoExtender is a fenced hold's draw when the inner algorithm offers no
// Extender: the hold is released at its bound.
var errNoExtender = errors.New("cohort: the inner algorithm cannot extend a fenced hold")

// passingThrough reports whether a request of another access (or one that
// otherwise passes through to the inner algorithm) is in progress for id:
// it waits in the inner algorithm's in-process turns, where a look at the
// store does not see it.
func (c *Algorithm) passingThrough(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.passing[id] > 0
}

// passThrough takes a through the inner algorithm, counted for
// passingThrough while it is in progress.
func (c *Algorithm) passThrough(ctx context.Context, a *manager.Acquisition) (held.Spec, error) {
	c.mu.Lock()
	c.passing[a.ID]++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if c.passing[a.ID]--; c.passing[a.ID] == 0 {
			delete(c.passing, a.ID)
		}
		c.mu.Unlock()
	}()
	return c.inner.Take(ctx, a)
}
