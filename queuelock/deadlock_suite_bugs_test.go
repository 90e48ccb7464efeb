//go:build lockstep_bugs

package queuelock

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/bugs"
	"github.com/lockstep-go/lockstep/locktest/managertest"
)

// The deadlock scenarios catch both planted defects of the detector: with
// DeadlockUndetected both clients wait until their deadline; with
// DeadlockVictimUnshared each takes the other for the victim, and both wait
// too. The suite runs in a child test process,
// which must fail.
func TestQueueLock_DeadlockScenarios_CatchPlantedDefects(t *testing.T) {
	if d := os.Getenv("QUEUELOCK_PLANT_DEADLOCK"); d != "" {
		defer bugs.Plant(bugs.Defect(d))()
		managertest.Run(t, managertest.Env{
			Virtual:  true,
			NewStore: newModel,
			NewLocker: func(t *testing.T, s lockstep.Store, sep string) lockstep.GroupLocker {
				l, err := New(s, &Options{Poll: 10e6, Separator: sep})
				require.NoError(t, err)
				return l
			},
			NewDetecting: func(t *testing.T, s lockstep.Store, sep string, d lockstep.DeadlockDetection) lockstep.GroupLocker {
				l, err := New(s, &Options{Poll: 10e6, Separator: sep, Deadlock: &d})
				require.NoError(t, err)
				return l
			},
		})
		return
	}
	for _, c := range []struct {
		defect bugs.Defect
		want   string
	}{
		{bugs.DeadlockUndetected, "context deadline exceeded"},
		{bugs.DeadlockVictimUnshared, "context deadline exceeded"},
	} {
		t.Run(string(c.defect), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestQueueLock_DeadlockScenarios_CatchPlantedDefects$/^DeadlockPair$", "-test.count=1")
			cmd.Env = append(os.Environ(), "QUEUELOCK_PLANT_DEADLOCK="+string(c.defect))
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "the pair scenario passed with %s planted:\n%s", c.defect, out)
			require.Contains(t, string(out), c.want, "the failure is the scenario's check:\n%s", out)
		})
	}
}
