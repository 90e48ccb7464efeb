package managertest

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/lockstep-go/lockstep"
)

// Env builds the world a scenario runs in.
type Env struct {
	// NewStore returns a fresh, empty store (or a fresh prefix of a shared
	// one) for one scenario. All Lockers of the scenario share it.
	NewStore func(t *testing.T) lockstep.Store
	// NewLocker returns one "process" on store, splitting ids into
	// hierarchy levels at separator ("" = flat ids). The suite closes it.
	NewLocker func(t *testing.T, store lockstep.Store, separator string) lockstep.GroupLocker
	// Virtual runs each scenario in a testing/synctest bubble (fake time).
	// A real store must leave it false.
	Virtual bool
	// Clients are the client counts of the counter scenarios (seed: N =
	// 1…40); nil means 1, 2, 8, 20 and 40.
	Clients []int
	// K is how many times each client increments the counter; 0 means 5.
	K int
	// Depths are the directory depths of the directories scenario; nil
	// means 1…5.
	Depths []int
	// ExclusiveOnly says the Locker takes every request exclusively (the
	// legacy algorithm: its wire format has only exclusive locks), so two
	// Shared holders exclude each other instead of sharing.
	ExclusiveOnly bool
	// NewDetecting returns a Locker like NewLocker's with deadlock
	// detection d switched on; nil skips the deadlock scenarios.
	NewDetecting func(t *testing.T, store lockstep.Store, separator string, d lockstep.DeadlockDetection) lockstep.GroupLocker
	// Unshareable says the Locker is a lockstep.Sharer whose locks cannot
	// be shared in the mode it takes them (a migration.Locker outside mode
	// new): Transfer then checks that Share refuses a held group with
	// lockstep.ErrIncompatibleMode and leaves it held.
	Unshareable bool
}

func (e Env) clients() []int {
	if e.Clients == nil {
		return []int{1, 2, 8, 20, 40}
	}
	return e.Clients
}

func (e Env) k() int {
	if e.K <= 0 {
		return 5
	}
	return e.K
}

func (e Env) depths() []int {
	if e.Depths == nil {
		return []int{1, 2, 3, 4, 5}
	}
	return e.Depths
}

// testCase is one run of a scenario: a subtest of its own, in a bubble of
// its own when the Env is Virtual.
type testCase struct {
	name string
	fn   func(t *testing.T, env Env)
}

// single is a scenario of one case.
func single(fn func(t *testing.T, env Env)) func(Env) []testCase {
	return func(Env) []testCase { return []testCase{{"", fn}} }
}

// Run runs every scenario.
func Run(t *testing.T, env Env) {
	scenarios := []struct {
		name  string
		cases func(env Env) []testCase
	}{
		{"Counter", counter},
		{"CounterWithReaders", counterWithReaders},
		{"SharedIsShared", single(sharedIsShared)},
		{"Directories", directories},
		{"Reentrant", single(reentrant)},
		{"ReentrantHierarchy", single(reentrantHierarchy)},
		{"ReentrantReported", single(reentrantReported)},
		{"DeadlockPair", single(deadlockPair)},
		{"DeadlockTriangle", single(deadlockTriangle)},
		{"DeadlockShared", single(deadlockShared)},
		{"ReentrantDetecting", single(reentrantDetecting)},
		{"UnlockAll", single(unlockAll)},
		{"Mask", single(mask)},
		{"MaskPairs", single(maskPairs)},
		{"Flags", single(flags)},
		{"Transfer", single(transfer)},
	}
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			for _, c := range s.cases(env) {
				run := func(t *testing.T) {
					if env.Virtual {
						synctest.Test(t, func(t *testing.T) { c.fn(t, env) })
						return
					}
					c.fn(t, env)
				}
				if c.name == "" {
					run(t)
					continue
				}
				t.Run(c.name, run)
			}
		})
	}
}

// newLocker returns a Locker the test closes when it ends.
func newLocker(t *testing.T, env Env, s lockstep.Store, separator string) lockstep.GroupLocker {
	t.Helper()
	l := env.NewLocker(t, s, separator)
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// acquirer is one way to take an id exclusively: Lock, or LockGroup with
// one Exclusive request. The suite alternates them among clients.
type acquirer func(ctx context.Context, l lockstep.GroupLocker, id string) (lockstep.Lock, error)

func byLock(ctx context.Context, l lockstep.GroupLocker, id string) (lockstep.Lock, error) {
	return l.Lock(ctx, id)
}

func byGroup(ctx context.Context, l lockstep.GroupLocker, id string) (lockstep.Lock, error) {
	return l.LockGroup(ctx, lockstep.Request{ID: id, Access: lockstep.Exclusive})
}

// exclusiveBy returns the acquirer of client i.
func exclusiveBy(i int) acquirer {
	if i%2 == 0 {
		return byLock
	}
	return byGroup
}
