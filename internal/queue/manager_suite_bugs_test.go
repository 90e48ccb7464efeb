//go:build lockstep_bugs

package queue

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/cohort"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/locktest/managertest"
)

// With SkipIntention planted (no intention locks on ancestors), seed 003's
// directories scenario fails: a delete of a directory runs beside a create
// below it. The suite runs in a child test process, which must fail, since
// a failing suite cannot be observed from inside the same test.
func TestQueueLock_ManagerSuite_SkipIntentionIsCaught(t *testing.T) {
	if os.Getenv("QUEUELOCK_PLANT_SKIP_INTENTION") != "" {
		managertest.Run(t, managertest.Env{
			Virtual:  true,
			Depths:   []int{2, 3},
			NewStore: newModel,
			NewLocker: func(t *testing.T, s lockstep.Store, sep string) lockstep.GroupLocker {
				l, err := New(s, &Options{Poll: 10e6, Separator: sep, TestingKnobs: &TestingKnobs{Manager: &manager.TestingKnobs{SkipIntention: true}}})
				require.NoError(t, err)
				return l
			},
		})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestQueueLock_ManagerSuite_SkipIntentionIsCaught$/^Directories$", "-test.count=1")
	cmd.Env = append(os.Environ(), "QUEUELOCK_PLANT_SKIP_INTENTION=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the directories scenario passed with SkipIntention planted:\n%s", out)
	require.Contains(t, string(out), "under way", "the failure is the scenario's integrity check:\n%s", out)
}

// With cohort's HandOnShared planted, seed 003's transfer scenario with
// local handoff fails: the worker's Unlock hands the shared lock to its
// other goroutine in memory while the successor holds it. As above, in a
// child test process, which must fail.
func TestQueueLock_ManagerSuite_HandOnSharedIsCaught(t *testing.T) {
	if os.Getenv("QUEUELOCK_PLANT_HAND_ON_SHARED") != "" {
		managertest.Run(t, managertest.Env{
			Virtual:  true,
			NewStore: newModel,
			NewLocker: func(t *testing.T, s lockstep.Store, sep string) lockstep.GroupLocker {
				l, err := New(s, &Options{Poll: 10e6, Separator: sep, LocalHandoff: 8,
					TestingKnobs: &TestingKnobs{Cohort: &cohort.TestingKnobs{HandOnShared: true}}})
				require.NoError(t, err)
				return l
			},
		})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestQueueLock_ManagerSuite_HandOnSharedIsCaught$/^Transfer$", "-test.count=1")
	cmd.Env = append(os.Environ(), "QUEUELOCK_PLANT_HAND_ON_SHARED=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the transfer scenario passed with HandOnShared planted:\n%s", out)
	require.Contains(t, string(out), "another goroutine of the worker acquired", "the failure is the scenario's check:\n%s", out)
}
