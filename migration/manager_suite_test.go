package migration

import (
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/locktest/managertest"
)

// Seed 003's functional scenarios (locktest/managertest) through a
// migration.Locker in each mode; legacy and combined take every member
// exclusively, so Shared excludes Shared there.
func TestMigration_ManagerSuite(t *testing.T) {
	suiteModes(t, func(t *testing.T, mode lockstep.Mode, newStore func(*testing.T) lockstep.Store,
		options func(lockstep.Clock, time.Duration, time.Duration, string) *Options) {
		managertest.Run(t, managertest.Env{
			Virtual:       true,
			ExclusiveOnly: mode != lockstep.ModeNew,
			Unshareable:   mode != lockstep.ModeNew, // Share hands over mode new's locks only
			Clients:       []int{1, 8, 40},
			NewStore:      newStore,
			NewLocker: func(t *testing.T, s lockstep.Store, sep string) lockstep.GroupLocker {
				l, err := New(s, flagOf(mode), options(nil, 0, 0, sep))
				if err != nil {
					t.Fatal(err)
				}
				return l
			},
			NewDetecting: func(t *testing.T, s lockstep.Store, sep string, d lockstep.DeadlockDetection) lockstep.GroupLocker {
				o := options(nil, 0, 0, sep)
				o.Deadlock = &d
				l, err := New(s, flagOf(mode), o)
				if err != nil {
					t.Fatal(err)
				}
				return l
			},
		})
	})
}
