package setup_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/setup"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// missing is a store on which one table does not exist.
type missing struct {
	lockstep.Store
	table string
}

var errNoTable = errors.New("table does not exist")

func (s missing) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	if table == s.table {
		return nil, errNoTable
	}
	return s.Store.Read(ctx, table, row, sl)
}

// The single-algorithm Lockers' Ready: fine on a store with their tables,
// the one text with the fix when one is missing, nothing written.
func TestReady_SingleAlgorithmLockers(t *testing.T) {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	q, err := queuelock.New(store, &queuelock.Options{Table: "q"})
	require.NoError(t, err)
	s, err := shadowlock.New(store, nil)
	require.NoError(t, err)
	require.NoError(t, q.Ready(ctx))
	require.NoError(t, s.Ready(ctx))

	q, err = queuelock.New(missing{store, "q"}, &queuelock.Options{Table: "q"})
	require.NoError(t, err)
	err = q.Ready(ctx)
	require.ErrorIs(t, err, queuelock.ErrNotReady)
	require.ErrorIs(t, err, errNoTable)
	assert.Equal(t, "queuelock: not ready: table q does not answer a read: table does not exist: "+setup.SchemaFix, err.Error())

	s, err = shadowlock.New(missing{store, shadowlock.DefaultShadowTable}, nil)
	require.NoError(t, err)
	err = s.Ready(ctx)
	require.ErrorIs(t, err, shadowlock.ErrNotReady)
	assert.Equal(t, "shadowlock: not ready: table legacy_shadow does not answer a read: table does not exist: "+setup.SchemaFix, err.Error())

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	err = setup.ProbeTables(cctx, missing{store, "x"}, "p: ", "x")
	require.ErrorIs(t, err, errNoTable)
	assert.NotErrorIs(t, err, setup.ErrNotReady, "a done ctx did not finish the check")
}

// The write probe's partition is one no lock can use: it is not a valid id.
func TestWriteRow_IsNoLockID(t *testing.T) {
	require.ErrorIs(t, lockstep.ValidateID(setup.ProbeWriteRow), lockstep.ErrInvalidID)
}
