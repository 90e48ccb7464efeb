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
// the Algorithm itself and the settings the Locker's manager and deadlock
// detector share with it.
type Core struct {
	Alg           Algorithm
	Store         lockstep.Store
	Clock         lockstep.Clock
	Observer      lockstep.Observer
	Process       string
	Separator     string
	MaxServerSkew time.Duration
	Rand          *mrand.Rand
	Knobs         *TestingKnobs
}

// BuildLocker is the construction every algorithm's NewLocker shares: it
// refuses a bad separator before build runs (so nothing is registered or
// started for a Locker that cannot be made), builds the core, then its
// deadlock detector (none for a nil detection) and the Locker over it,
// named name and in mode. On any error after build succeeded it closes the
// core, so a failed call leaves nothing running.
func BuildLocker(name string, mode lockstep.Mode, separator string, detection *lockstep.DeadlockDetection, build func() (Core, error)) (*Locker, error) {
	if err := setup.ValidateSeparator(separator); err != nil {
		return nil, err
	}
	c, err := build()
	if err != nil {
		return nil, err
	}
	det, err := deadlock.ForLocker(c.Store, c.Clock, c.Process, detection, c.MaxServerSkew, c.Rand, c.Knobs.DeadlockKnobs())
	if err != nil {
		_ = c.Alg.Close(context.Background())
		return nil, err
	}
	m, err := NewLocker(c.Alg, Config{Name: name, Mode: mode, Clock: c.Clock, Observer: c.Observer,
		Separator: c.Separator, Detector: det, Knobs: c.Knobs})
	if err != nil {
		_ = c.Alg.Close(context.Background())
		return nil, err
	}
	return m, nil
}
