//go:build lockstep_bugs

package queue

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/deadlock"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/locktest/managertest"
)

// deadlockDefects are the detector's planted defects, by the names the
// child process is told.
var deadlockDefects = map[string]deadlock.Knobs{
	"undetected":      {Undetected: true},
	"victim-unshared": {VictimUnshared: true},
}

// The deadlock scenarios catch two planted defects of the detector: with
// Undetected both clients wait until their deadline; with VictimUnshared
// each takes the other for the victim, and both wait too. The suite runs in
// a child test process, which must fail.
func TestQueueLock_DeadlockScenarios_CatchPlantedDefects(t *testing.T) {
	if name := os.Getenv("QUEUELOCK_PLANT_DEADLOCK"); name != "" {
		knobs := &TestingKnobs{Manager: &manager.TestingKnobs{Deadlock: deadlockDefects[name]}}
		managertest.Run(t, managertest.Env{
			Virtual:  true,
			NewStore: newModel,
			NewLocker: func(t *testing.T, s lockstep.Store, sep string) lockstep.GroupLocker {
				l, err := New(s, &Options{Poll: 10e6, Separator: sep})
				require.NoError(t, err)
				return l
			},
			NewDetecting: func(t *testing.T, s lockstep.Store, sep string, d lockstep.DeadlockDetection) lockstep.GroupLocker {
				l, err := New(s, &Options{Poll: 10e6, Separator: sep, Deadlock: &d, TestingKnobs: knobs})
				require.NoError(t, err)
				return l
			},
		})
		return
	}
	for name := range deadlockDefects {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestQueueLock_DeadlockScenarios_CatchPlantedDefects$/^DeadlockPair$", "-test.count=1")
			cmd.Env = append(os.Environ(), "QUEUELOCK_PLANT_DEADLOCK="+name)
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "the pair scenario passed with %s planted:\n%s", name, out)
			require.Contains(t, string(out), "context deadline exceeded", "the failure is the scenario's check:\n%s", out)
		})
	}
}
