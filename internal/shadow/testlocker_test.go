package shadow

import (
	"context"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/manager"
)

// core is the legacy Locker, as testLocker embeds it.
type core = Locker

// testLocker is what shadowlock.New builds — the lock manager over a queue
// Locker — with the core's fields and methods at hand for the tests.
type testLocker struct {
	*core
	*manager.Locker
}

// New returns the lock manager over a legacy Locker on store, as
// shadowlock.New does.
func New(store lockstep.Store, opts *Options) (*testLocker, error) {
	m, err := NewLocker(store, opts)
	if err != nil {
		return nil, err
	}
	return &testLocker{core: m.Algorithm().(*Locker), Locker: m}, nil
}

func (l *testLocker) Close(ctx context.Context) error { return l.Locker.Close(ctx) }
