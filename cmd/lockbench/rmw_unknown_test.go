package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// unknownRegister is a simRegister whose every third compare-and-set
// reports an unknown outcome whether it was applied or refused, as a
// lightweight transaction that timed out does.
type unknownRegister struct {
	*simRegister
	mu    sync.Mutex
	calls int
}

func (r *unknownRegister) cas(ctx context.Context, key string, version, value int64) (bool, error) {
	ok, err := r.simRegister.cas(ctx, key, version, value)
	if err != nil {
		return ok, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.calls%3 != 0 {
		return ok, nil
	}
	// applied (ok) or not, the caller hears only that it timed out
	return false, fmt.Errorf("timed out: %w", lockstep.ErrUnknownOutcome)
}

// An optimistic user whose upload's outcome is unknown starts over, the
// run counts the upload as unknown, and the counters check allows one
// more per unknown upload (each may have been applied) but no more.
func TestRMW_UnknownUploadsRestartAndAreCounted(t *testing.T) {
	const minLat, maxLat = 500 * time.Microsecond, 2 * time.Millisecond
	w, err := newSimWorld(minLat, maxLat, 10*time.Millisecond, 7)
	require.NoError(t, err)
	reg := &unknownRegister{simRegister: newSimRegister(w.clk, minLat, maxLat, 4, 7)}
	c, err := runRMW(w, reg, rmwSingle, rmwOptimistic, rmwParams{users: 3, ops: 20, resources: 1, modify: 5 * time.Millisecond, seed: 7})
	require.NoError(t, err)
	require.EqualValues(t, 3*20, c.uploads)
	require.Positive(t, c.unknown)
	require.Positive(t, c.extra, "some unknown uploads were applied")
	require.LessOrEqual(t, c.extra, c.unknown)
	require.Zero(t, c.lostUpdates)
	require.NoError(t, c.checkCounters())
	require.Len(t, c.upSpans, int(c.uploads+c.failures+c.unknown))
}

// The check refuses a sum short of the uploads, and a sum above them by
// more than the unknown uploads.
func TestRMWCell_CheckCounters(t *testing.T) {
	require.NoError(t, rmwCell{extra: 2, unknown: 2}.checkCounters())
	require.ErrorContains(t, rmwCell{lostUpdates: 1}.checkCounters(), "1 lost updates")
	require.ErrorContains(t, rmwCell{extra: 3, unknown: 2}.checkCounters(), "3 more than the uploads, but only 2")
}

// Timeouts of the coordinator and the driver are timeouts; a refusal or
// an unavailable coordinator is not.
func TestIsTimeout(t *testing.T) {
	for _, err := range []error{&gocql.RequestErrReadTimeout{}, &gocql.RequestErrWriteTimeout{WriteType: "CAS"},
		&gocql.RequestErrCASWriteUnknown{}, gocql.ErrTimeoutNoResponse, fmt.Errorf("x: %w", gocql.ErrTimeoutNoResponse)} {
		require.True(t, isTimeout(err), "%v", err)
	}
	for _, err := range []error{nil, &gocql.RequestErrUnavailable{}, errors.New("other"), context.DeadlineExceeded} {
		require.False(t, isTimeout(err), "%v", err)
	}
}
