package outcome_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/adapters/outcome"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

func TestAcquire_ClassifiesEveryKindOfError(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("queuelock: claim: %w", err) }
	refusal := &migration.ModeError{ID: "x", Process: "p", Configured: lockstep.ModeLegacy,
		Phase: migration.Phase{Mode: lockstep.ModeNew}}
	cases := []struct {
		e    lockstep.AcquireEvent
		want outcome.Result
	}{
		{lockstep.AcquireEvent{Mode: lockstep.ModeNew, Acquired: true}, outcome.Acquired},
		{lockstep.AcquireEvent{Mode: lockstep.ModeNew, Try: true, Err: wrap(lockstep.ErrLocked)}, outcome.NotAcquired},
		{lockstep.AcquireEvent{Mode: lockstep.ModeLegacy, Err: fmt.Errorf("migration: %w", refusal)}, outcome.Refused},
		{lockstep.AcquireEvent{Mode: lockstep.ModeUnknown, Err: errors.New("migration: mode flag: provider down")}, outcome.FlagError},
		{lockstep.AcquireEvent{Mode: lockstep.ModeUnknown, Err: wrap(lockstep.ErrInvalidMode)}, outcome.FlagError},
		{lockstep.AcquireEvent{Mode: lockstep.ModeNew, Err: wrap(migration.ErrStaleCensus)}, outcome.StaleCensus},
		{lockstep.AcquireEvent{Mode: lockstep.ModeNew, Err: wrap(context.Canceled)}, outcome.Canceled},
		{lockstep.AcquireEvent{Mode: lockstep.ModeUnknown, Err: wrap(context.DeadlineExceeded)}, outcome.DeadlineExceeded},
		{lockstep.AcquireEvent{Mode: lockstep.ModeCombined, Try: true, Err: wrap(lockstep.ErrLost)}, outcome.Lost},
		{lockstep.AcquireEvent{Mode: lockstep.ModeNew, Err: &lockstep.ForeignCellError{Table: "queue_lock"}}, outcome.ForeignCell},
		{lockstep.AcquireEvent{Mode: lockstep.ModeNew, Err: wrap(lockstep.ErrUnknownOutcome)}, outcome.UnknownOutcome},
		{lockstep.AcquireEvent{Mode: lockstep.ModeNew, Err: wrap(lockstep.ErrClosed)}, outcome.Closed},
		{lockstep.AcquireEvent{Mode: lockstep.ModeNew, Err: errors.New("gocql: no hosts available")}, outcome.Error},
		{lockstep.AcquireEvent{Mode: lockstep.ModeNew}, outcome.Error},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, outcome.Acquire(&c.e), "event %+v", c.e)
	}
}

func TestResult_LabelValuesAreDistinctAndSnakeCase(t *testing.T) {
	seen := map[string]bool{}
	for r := outcome.Result(0); r < outcome.NumResults; r++ {
		s := r.String()
		require.Regexp(t, `^[a-z][a-z_]*$`, s)
		require.False(t, seen[s], "duplicate label value %q", s)
		seen[s] = true
	}
	assert.Equal(t, "error", outcome.NumResults.String())
	assert.False(t, outcome.Acquired.Failed())
	assert.False(t, outcome.NotAcquired.Failed())
	assert.True(t, outcome.Refused.Failed())
}

func TestReleaseOf_LostBeforeError(t *testing.T) {
	assert.Equal(t, outcome.Released, outcome.ReleaseOf(&lockstep.ReleaseEvent{}))
	assert.Equal(t, outcome.ReleaseLost, outcome.ReleaseOf(&lockstep.ReleaseEvent{WasLost: true, Err: errors.New("x")}))
	assert.Equal(t, outcome.ReleaseLost, outcome.ReleaseOf(&lockstep.ReleaseEvent{Err: fmt.Errorf("u: %w", lockstep.ErrLost)}))
	assert.Equal(t, outcome.ReleaseErr, outcome.ReleaseOf(&lockstep.ReleaseEvent{Err: errors.New("timeout")}))
}

func TestModeIndex_FoldsOutOfRangeModes(t *testing.T) {
	assert.Equal(t, 3, outcome.ModeIndex(lockstep.ModeNew))
	assert.Equal(t, 0, outcome.ModeIndex(lockstep.Mode(9)))
	assert.Equal(t, 4, outcome.NumModes)
}

// recorder keeps the acquisition events a real Locker sends.
type recorder struct {
	lockstep.NopObserver
	mu     sync.Mutex
	events []lockstep.AcquireEvent
}

func (r *recorder) ObserveAcquire(_ context.Context, e lockstep.AcquireEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// The refusal a real migration.Locker reports (legacy configured, phase new)
// is classified Refused, with both modes recovered from the event; a flag
// answering no valid mode is FlagError.
func TestAcquire_ClassifiesARealLockersRefusalAndFlagError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store := model.New(&clock.Local{})
		ctl, err := migration.NewController(store, nil)
		require.NoError(t, err)
		require.NoError(t, ctl.Set(ctx, lockstep.ModeCombined))
		require.NoError(t, ctl.Set(ctx, lockstep.ModeNew))

		rec := &recorder{}
		l, err := migration.New(store, migration.Static(lockstep.ModeLegacy), &migration.Options{ProcessID: "p1", Observer: rec})
		require.NoError(t, err)
		_, err = l.Lock(ctx, "invoice/1")
		require.ErrorIs(t, err, lockstep.ErrIncompatibleMode)
		require.NoError(t, l.Close(ctx))

		bad, err := migration.New(store, migration.Static(lockstep.Mode(7)), &migration.Options{ProcessID: "p2", Observer: rec})
		require.NoError(t, err)
		_, err = bad.TryLock(ctx, "invoice/1")
		require.Error(t, err)
		require.NoError(t, bad.Close(ctx))

		require.Len(t, rec.events, 2)
		assert.Equal(t, outcome.Refused, outcome.Acquire(&rec.events[0]))
		m, phase, ok := outcome.Refusal(&rec.events[0])
		require.True(t, ok)
		assert.Equal(t, lockstep.ModeLegacy, m)
		assert.Equal(t, "new", phase.String())

		assert.Equal(t, outcome.FlagError, outcome.Acquire(&rec.events[1]))
		_, _, ok = outcome.Refusal(&rec.events[1])
		assert.False(t, ok)
	})
}
