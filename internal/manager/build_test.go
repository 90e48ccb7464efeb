package manager

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/model"
)

// closingAlg is an Algorithm that takes nothing and counts its Closes.
type closingAlg struct{ closed int }

func (a *closingAlg) Take(context.Context, *Acquisition) (held.Spec, error) {
	return held.Spec{}, errors.New("closingAlg takes nothing")
}
func (a *closingAlg) Close(context.Context) error { a.closed++; return nil }

func coreOf(a *closingAlg) Core {
	return Core{Alg: a, Store: model.New(&clock.Local{}), Clock: &clock.Local{}, Process: "p"}
}

// A bad separator is refused before the core is built: nothing of it is
// started, so nothing needs closing.
func TestBuildLocker_RefusesABadSeparatorBeforeBuilding(t *testing.T) {
	built := false
	_, err := BuildLocker("x", lockstep.ModeNew, "\x00", nil, func() (Core, error) {
		built = true
		return coreOf(&closingAlg{}), nil
	})
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	require.False(t, built, "the core was built for a separator that is refused")
}

// A build that fails returns its error and closes nothing.
func TestBuildLocker_ReturnsTheBuildsError(t *testing.T) {
	boom := errors.New("boom")
	_, err := BuildLocker("x", lockstep.ModeNew, "", nil, func() (Core, error) { return Core{}, boom })
	require.ErrorIs(t, err, boom)
}

// A deadlock detection the detector refuses closes the core built for it.
func TestBuildLocker_ClosesTheCoreWhenTheDetectorIsRefused(t *testing.T) {
	a := &closingAlg{}
	_, err := BuildLocker("x", lockstep.ModeNew, "/", &lockstep.DeadlockDetection{Every: time.Millisecond},
		func() (Core, error) { return coreOf(a), nil })
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	require.Equal(t, 1, a.closed, "the core was left running")
}

// Built, the Locker is the core's and closes it once with its own Close.
func TestBuildLocker_TheLockerClosesTheCore(t *testing.T) {
	a := &closingAlg{}
	l, err := BuildLocker("x", lockstep.ModeNew, "/", &lockstep.DeadlockDetection{}, func() (Core, error) { return coreOf(a), nil })
	require.NoError(t, err)
	require.Zero(t, a.closed)
	require.NoError(t, l.Close(t.Context()))
	require.Equal(t, 1, a.closed)
}
