package cqlstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

const sel = "SELECT column_name, value, WRITETIME(value), TTL(value) FROM locks.queue_lock WHERE row_key = ? AND column_name >= ?"

func TestStatements_TextOfEachOperation(t *testing.T) {
	st := newStatements("locks", "queue_lock")
	assert.Equal(t, "UPDATE locks.queue_lock USING TIMESTAMP ? AND TTL ? SET value = ? WHERE row_key = ? AND column_name = ?", st.Put)
	assert.Equal(t, "DELETE FROM locks.queue_lock USING TIMESTAMP ? WHERE row_key = ? AND column_name = ?", st.Delete)
	assert.Equal(t, sel, st.Read[ReadVariant(lockstep.Slice{From: "a"})])
	assert.Equal(t, sel+" AND column_name < ?", st.Read[ReadVariant(lockstep.Slice{From: "a", To: "b"})])
	assert.Equal(t, sel+" LIMIT ?", st.Read[ReadVariant(lockstep.Slice{Limit: 3})])
	assert.Equal(t, sel+" AND column_name < ? LIMIT ?", st.Read[ReadVariant(lockstep.Slice{To: "b", Limit: 3})])
}

func TestStore_CachesStatementsPerTable(t *testing.T) {
	s := newTestStore(t, &fakeDriver{})
	a, err := s.StatementsFor("legacy_main")
	require.NoError(t, err)
	b, _ := s.StatementsFor("legacy_main")
	c, _ := s.StatementsFor("legacy_shadow")
	assert.Same(t, a, b)
	assert.Equal(t, "UPDATE locks.legacy_shadow USING TIMESTAMP ? AND TTL ? SET value = ? WHERE row_key = ? AND column_name = ?", c.Put)
}

func TestStore_PutSendsOneRequestWithEveryCell(t *testing.T) {
	d := &fakeDriver{}
	s := newTestStore(t, d)
	err := s.Put(t.Context(), "queue_lock", "r",
		lockstep.Cell{Column: "a", Value: []byte("x"), Timestamp: 7, TTL: 3 * time.Second},
		lockstep.Cell{Column: "b", Timestamp: 8})
	require.NoError(t, err)
	require.Len(t, d.calls, 1)
	assert.Equal(t, [][]any{{int64(7), 3, []byte("x"), "r", "a"}, {int64(8), 0, []byte{}, "r", "b"}}, d.calls[0].args,
		"TTL in whole seconds; a nil value sent as an empty blob, not a null")
}

func TestStore_DeleteSendsOneTombstonePerColumn(t *testing.T) {
	d := &fakeDriver{}
	s := newTestStore(t, d)
	require.NoError(t, s.Delete(t.Context(), "queue_lock", "r", 9, "a", "b"))
	require.Len(t, d.calls, 1)
	assert.Equal(t, "DELETE FROM locks.queue_lock USING TIMESTAMP ? WHERE row_key = ? AND column_name = ?", d.calls[0].stmt)
	assert.Equal(t, [][]any{{int64(9), "r", "a"}, {int64(9), "r", "b"}}, d.calls[0].args)
}

func TestStore_BadInputSendsNothing(t *testing.T) {
	d := &fakeDriver{}
	s := newTestStore(t, d)
	ctx := t.Context()
	for _, table := range []string{"", "Queue", "queue_lock; DROP TABLE x", "other.queue_lock"} {
		assert.ErrorIs(t, s.Put(ctx, table, "r", lockstep.Cell{Column: "c"}), lockstep.ErrInvalidConfig)
		assert.ErrorIs(t, s.Delete(ctx, table, "r", 1, "c"), lockstep.ErrInvalidConfig)
		_, err := s.Read(ctx, table, "r", lockstep.Slice{})
		assert.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	}
	for _, ttl := range []time.Duration{-time.Second, time.Millisecond, 1500 * time.Millisecond, MaxTTL + time.Second} {
		err := s.Put(ctx, "queue_lock", "r", lockstep.Cell{Column: "a", TTL: time.Second}, lockstep.Cell{Column: "b", TTL: ttl})
		assert.ErrorIs(t, err, lockstep.ErrInvalidConfig, "TTL %v", ttl)
	}
	_, err := s.Read(ctx, "queue_lock", "r", lockstep.Slice{Limit: -1})
	assert.ErrorContains(t, err, "negative limit")
	cells, err := s.Read(ctx, "queue_lock", "r", lockstep.Slice{From: "b", To: "b"})
	assert.NoError(t, err)
	assert.Nil(t, cells)
	assert.NoError(t, s.Put(ctx, "queue_lock", "r"))
	assert.NoError(t, s.Delete(ctx, "queue_lock", "r", 1))
	done, cancel := context.WithCancel(ctx)
	cancel()
	err = s.Put(done, "queue_lock", "r", lockstep.Cell{Column: "c"})
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, lockstep.ErrUnknownOutcome, "nothing was sent")
	err = s.Delete(done, "queue_lock", "r", 1, "c")
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, lockstep.ErrUnknownOutcome)
	assert.Empty(t, d.calls)
}

func TestStore_WriteErrorsAreClassified(t *testing.T) {
	d := &fakeDriver{err: errNoAnswer}
	s := newTestStore(t, d)
	assert.ErrorIs(t, s.Put(t.Context(), "queue_lock", "r", lockstep.Cell{Column: "c"}), lockstep.ErrUnknownOutcome)
	d.err = errRefused
	err := s.Delete(t.Context(), "queue_lock", "r", 1, "c")
	assert.ErrorIs(t, err, errRefused)
	assert.NotErrorIs(t, err, lockstep.ErrUnknownOutcome)
}

func TestStore_ReadDecodesRowsIntoCells(t *testing.T) {
	d := &fakeDriver{rows: &fakeRows{rows: [][4]any{
		{"a", []byte("x"), int64(5), 0},
		{"b", []byte{}, int64(6), 4},
	}}}
	s := newTestStore(t, d)
	cells, err := s.Read(t.Context(), "queue_lock", "r", lockstep.Slice{From: "a", To: "z", Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, []lockstep.Cell{
		{Column: "a", Value: []byte("x"), Timestamp: 5},
		{Column: "b", Value: []byte{}, Timestamp: 6, TTL: 4 * time.Second},
	}, cells)
	assert.Equal(t, sel+" AND column_name < ? LIMIT ?", d.calls[0].stmt)
	assert.Equal(t, []any{"r", "a", "z", 2}, d.calls[0].args[0])
}

func TestStore_ReadErrorsArePlainFailures(t *testing.T) {
	broken := errors.New("scan failed")
	for _, rows := range []*fakeRows{
		{err: errNoAnswer},
		{rows: [][4]any{{"a", []byte{}, int64(1), 0}}, scanErr: broken},
		{rows: [][4]any{{"a", []byte{}, int64(1), 0}}, err: errNoAnswer},
	} {
		s := newTestStore(t, &fakeDriver{rows: rows})
		cells, err := s.Read(t.Context(), "queue_lock", "r", lockstep.Slice{})
		assert.Nil(t, cells)
		assert.Error(t, err)
		assert.NotErrorIs(t, err, lockstep.ErrUnknownOutcome)
		assert.Contains(t, err.Error(), "cqltest: read queue_lock: ")
	}
}

func TestNewStore_RefusesUnsafeKeyspaceAndPairs(t *testing.T) {
	for _, ks := range []string{"", "Locks", "locks.x", "locks; DROP KEYSPACE x", `"locks"`, "9locks"} {
		_, err := NewStore(&fakeDriver{}, testErrors, ks, lockstep.Scope{}, Quorum, Quorum)
		assert.ErrorIs(t, err, lockstep.ErrInvalidConfig, "%q", ks)
	}
	_, err := NewStore(&fakeDriver{}, testErrors, "locks", lockstep.Scope{}, One, One)
	assert.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.ErrorIs(t, NilSession("*x.Session"), lockstep.ErrInvalidConfig)
	assert.EqualError(t, NilSession("*x.Session"), "lockstep: invalid configuration: session: nil *x.Session: "+
		"pass a connected session, the one cluster.CreateSession() returned (cluster := gocql.NewCluster(hosts...))")
}

func TestStore_PutDeleteSendsTombstonesAndCellsInOneRequest(t *testing.T) {
	d := &fakeDriver{}
	s := newTestStore(t, d)
	err := s.PutDelete(t.Context(), "queue_lock", "r", 7, []string{"q", "o"},
		lockstep.Cell{Column: "h", Value: []byte("w"), Timestamp: 5, TTL: 6 * time.Second})
	require.NoError(t, err)
	st, _ := s.StatementsFor("queue_lock")
	require.Equal(t, []call{
		{st.Delete, [][]any{{int64(7), "r", "q"}}},
		{st.Delete, [][]any{{int64(7), "r", "o"}}},
		{st.Put, [][]any{{int64(5), 6, []byte("w"), "r", "h"}}},
	}, d.calls)

	d.calls = nil
	err = s.PutDelete(t.Context(), "queue_lock", "r", 7, []string{"q"}, lockstep.Cell{Column: "h", TTL: 1500 * time.Millisecond})
	require.ErrorContains(t, err, "whole number of seconds")
	require.Empty(t, d.calls, "a bad TTL sends nothing")
	_, err = s.StatementsFor("Bad-Name")
	require.Error(t, err)
	require.Error(t, s.PutDelete(t.Context(), "Bad-Name", "r", 7, []string{"q"}))
	require.Empty(t, d.calls, "a bad table name sends nothing")
}
