package manager

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/setup"
	"github.com/lockstep-go/lockstep/model"
)

// closingAlg is an Algorithm that takes nothing and counts its Closes.
type closingAlg struct{ closed int }

func (a *closingAlg) Take(context.Context, *Acquisition) (held.Spec, error) {
	return held.Spec{}, errors.New("closingAlg takes nothing")
}
func (a *closingAlg) Close(context.Context) error { a.closed++; return nil }

func coreOf(a *closingAlg) Core {
	return Core{Alg: a, Store: model.New(&clock.Local{})}
}

// settings returns resolved settings with separator "/" and detection d.
func settings(t *testing.T, d *lockstep.DeadlockDetection) setup.Process {
	p, err := setup.Process{ID: "p", Separator: "/", Deadlock: d}.Resolve()
	require.NoError(t, err)
	return p
}

// A build that fails returns its error and closes nothing.
func TestBuildLocker_ReturnsTheBuildsError(t *testing.T) {
	boom := errors.New("boom")
	_, err := BuildLocker("x", lockstep.ModeNew, settings(t, nil), func() (Core, error) { return Core{}, boom })
	require.ErrorIs(t, err, boom)
}

// A detector that cannot be made (here: a core without a store) closes
// the core built for it.
func TestBuildLocker_ClosesTheCoreWhenTheDetectorIsRefused(t *testing.T) {
	a := &closingAlg{}
	_, err := BuildLocker("x", lockstep.ModeNew, settings(t, &lockstep.DeadlockDetection{}),
		func() (Core, error) { return Core{Alg: a}, nil })
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	require.Equal(t, 1, a.closed, "the core was left running")
}

// Built, the Locker is the core's and closes it once with its own Close.
func TestBuildLocker_TheLockerClosesTheCore(t *testing.T) {
	a := &closingAlg{}
	l, err := BuildLocker("x", lockstep.ModeNew, settings(t, &lockstep.DeadlockDetection{}), func() (Core, error) { return coreOf(a), nil })
	require.NoError(t, err)
	require.Zero(t, a.closed)
	require.NoError(t, l.Close(t.Context()))
	require.Equal(t, 1, a.closed)
}
