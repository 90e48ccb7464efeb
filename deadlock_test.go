package lockstep_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

func TestDeadlockError_ListsTheCycleAndSaysWhatToDo(t *testing.T) {
	err := fmt.Errorf("lockstep: lock group [b:X]: %w", &lockstep.DeadlockError{Cycle: []lockstep.DeadlockMember{
		{Process: "p1", Waits: lockstep.Request{ID: "b"}, HeldBy: "p2/7", HeldIn: lockstep.Exclusive, Comment: "invoice 42"},
		{Process: "p2", Waits: lockstep.Request{ID: "a", Access: lockstep.Shared}, HeldBy: "p1/3", HeldIn: lockstep.IntentExclusive},
	}})
	require.ErrorIs(t, err, lockstep.ErrDeadlock)
	var de *lockstep.DeadlockError
	require.True(t, errors.As(err, &de))
	assert.Equal(t, "lockstep: lock group [b:X]: lockstep: deadlock: this call waited in a cycle of 2 waits and was chosen to break it "+
		`(it released what it took): p1 waits for b:X held in X by p2/7 ("invoice 42"); p2 waits for a:S held in IX by p1/3: `+
		"release what the unit of work holds and retry it, or take its ids in one LockGroup", err.Error())
}

func TestDeadlockDetection_ResolveDefaultsAndRefusals(t *testing.T) {
	d, err := lockstep.DeadlockDetection{}.Resolve()
	require.NoError(t, err)
	assert.Equal(t, lockstep.DeadlockDetection{After: time.Second, Every: time.Second, Table: "lock_waits", Partition: "waits"}, d)
	_, err = lockstep.DeadlockDetection{Every: 10 * time.Millisecond}.Resolve()
	assert.EqualError(t, err, "lockstep: invalid configuration: Deadlock.Every: 10ms is below 100ms: each round writes and reads the store; use 0 for the default 1s")
	_, err = lockstep.DeadlockDetection{Partition: "bad\x00"}.Resolve()
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "Deadlock.Partition")
}
