package census_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration/census"
	"github.com/lockstep-go/lockstep/model"
)

func TestCell_ReadsBackAsTheSameEntry(t *testing.T) {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	sent := time.Date(2026, 11, 27, 14, 0, 0, 123456000, time.UTC)
	in := census.Entry{Process: "web-1", Host: "h1", Version: "v1.4.2", Configured: lockstep.ModeCombined,
		Held: map[lockstep.Mode]int{lockstep.ModeCombined: 2}, Acquiring: map[lockstep.Mode]int{lockstep.ModeNew: 1}, Time: sent}
	c, err := in.Cell(7, 30*time.Second)
	require.NoError(t, err)
	require.Equal(t, "web-1", c.Column)
	require.Equal(t, int64(7), c.Timestamp)
	require.JSONEq(t, `{"process":"web-1","host":"h1","configured":"combined","held":{"combined":2},
		"acquiring":{"new":1},"version":"v1.4.2","time":"2026-11-27T14:00:00.123456Z"}`, string(c.Value))
	require.NoError(t, store.Put(ctx, census.DefaultTable, census.Row, c))

	out, err := census.Read(ctx, store, "") // "" is DefaultTable
	require.NoError(t, err)
	require.Len(t, out, 1)
	got := out[0]
	require.NoError(t, got.Err)
	require.Positive(t, got.TTL)
	got.TTL = 0
	require.Equal(t, in, got)
	require.Equal(t, []lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew}, got.InUse())
	require.Equal(t, "web-1 (host h1, version v1.4.2): configured combined, holds combined×2, acquiring new×1", got.String())
}

func TestCell_LeavesOutAnEmptyAcquiring(t *testing.T) {
	c, err := census.Entry{Process: "p", Configured: lockstep.ModeLegacy}.Cell(1, time.Second)
	require.NoError(t, err)
	require.NotContains(t, string(c.Value), "acquiring")
}

func TestRead_SortsByProcessAndReturnsAnUndecodableEntryWithErr(t *testing.T) {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	for _, p := range []string{"c", "a"} {
		c, err := census.Entry{Process: p, Configured: lockstep.ModeNew}.Cell(1, time.Minute)
		require.NoError(t, err)
		require.NoError(t, store.Put(ctx, "my_census", census.Row, c))
	}
	require.NoError(t, store.Put(ctx, "my_census", census.Row,
		lockstep.Cell{Column: "b", Value: []byte(`{"configured":"shadow"}`), Timestamp: 1}))

	es, err := census.Read(ctx, store, "my_census")
	require.NoError(t, err)
	require.Len(t, es, 3)
	require.Equal(t, []string{"a", "b", "c"}, []string{es[0].Process, es[1].Process, es[2].Process})
	require.ErrorIs(t, es[1].Err, lockstep.ErrInvalidMode)
	require.True(t, strings.HasPrefix(es[1].String(), "b: census: entry of \"b\""), es[1].String())
}

// A table name that is not a CQL identifier is refused before any request.
func TestRead_RefusesABadTableNameWithNoRequest(t *testing.T) {
	_, err := census.Read(context.Background(), noStore{}, "census; DROP")
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
}

// noStore answers any read with an error that is not ErrInvalidConfig.
type noStore struct{ lockstep.Store }

func (noStore) Read(context.Context, string, string, lockstep.Slice) ([]lockstep.Cell, error) {
	return nil, errors.New("no request may be sent")
}
