package manager

import (
	"context"
	mrand "math/rand/v2"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/deadlock"
	"github.com/lockstep-go/lockstep/internal/setup"
)

// Core is what BuildLocker needs of an algorithm's core once it is built:
// the Algorithm itself and what the Locker's deadlock detector takes from
// its options.
type Core struct {
	Alg           Algorithm
	Store         lockstep.Store
	MaxServerSkew time.Duration
	Rand          *mrand.Rand
	Knobs         *TestingKnobs
}

// BuildLocker is the construction every algorithm's NewLocker shares, with
// p the Locker's settings, resolved (setup.Process.Resolve): it builds the
// core, then its deadlock detector (none without p.Deadlock) and the Locker
// over it, named name and in mode, with p's clock, observer and separator.
// On any error after build succeeded it closes the core, so a failed call
// leaves nothing running.
func BuildLocker(name string, mode lockstep.Mode, p setup.Process, build func() (Core, error)) (*Locker, error) {
	c, err := build()
	if err != nil {
		return nil, err
	}
	det, err := deadlock.ForLocker(c.Store, p, c.MaxServerSkew, c.Rand, c.Knobs.DeadlockKnobs())
	if err != nil {
		_ = c.Alg.Close(context.Background())
		return nil, err
	}
	m, err := NewLocker(c.Alg, Config{Name: name, Mode: mode, Clock: p.Clock, Observer: p.Observer,
		Separator: p.Separator, Detector: det, Knobs: c.Knobs})
	if err != nil {
		_ = c.Alg.Close(context.Background())
		return nil, err
	}
	return m, nil
}
