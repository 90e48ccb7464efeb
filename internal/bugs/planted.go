//go:build lockstep_bugs

package bugs

import (
	"context"
	"sync"
)

// Compiled reports whether planted defects are compiled in: true only in a
// build with the lockstep_bugs tag, which no normal build has.
const Compiled = true

var planted struct {
	mu sync.Mutex
	on map[Defect]bool
}

// Plant switches defect d on for the whole process until the returned
// function is called. Only tests built with -tags lockstep_bugs can call it.
func Plant(d Defect) (undo func()) {
	planted.mu.Lock()
	defer planted.mu.Unlock()
	if planted.on == nil {
		planted.on = map[Defect]bool{}
	}
	planted.on[d] = true
	return func() {
		planted.mu.Lock()
		defer planted.mu.Unlock()
		delete(planted.on, d)
	}
}

// Planted reports whether defect d is switched on.
func Planted(d Defect) bool {
	planted.mu.Lock()
	defer planted.mu.Unlock()
	return planted.on[d]
}

type key struct{}

// With returns ctx carrying s.
func With(ctx context.Context, s Set) context.Context { return context.WithValue(ctx, key{}, s) }

// From returns the defects ctx carries; none for a context without any.
func From(ctx context.Context) Set {
	s, _ := ctx.Value(key{}).(Set)
	return s
}
