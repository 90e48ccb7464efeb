package cqlstore

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// fakeFence is one fenced key kept in memory, answering the three statements
// as Cassandra's lightweight transactions would. before, if set, runs before
// each transaction (another writer racing in).
type fakeFence struct {
	exists bool
	token  int64
	value  []byte
	casErr error
	before func(f *fakeFence, stmt string)
	stmts  []string
}

func (f *fakeFence) CAS(_ context.Context, stmt string, args []any, row map[string]any) (bool, error) {
	f.stmts = append(f.stmts, stmt)
	if f.casErr != nil {
		return false, f.casErr
	}
	if f.before != nil {
		f.before(f, stmt)
	}
	if strings.HasPrefix(stmt, "INSERT") {
		if f.exists {
			row["fence_token"] = f.token
			return false, nil
		}
		f.exists, f.token, f.value = true, args[1].(int64), args[2].([]byte)
		return true, nil
	}
	if !f.exists {
		return false, nil // a condition on a missing row: no fence_token column
	}
	if tok := args[0].(int64); f.token <= tok {
		f.token, f.value = tok, args[1].([]byte)
		return true, nil
	}
	row["fence_token"] = f.token
	return false, nil
}

func (f *fakeFence) Load(_ context.Context, _, _ string, token *int64, value *[]byte) (bool, error) {
	*token, *value = f.token, f.value
	return f.exists, nil
}

func TestFence_CommitPathsAndTheTokenThatWon(t *testing.T) {
	f := &fakeFence{}
	fence := newTestFence(t, f)
	ctx := t.Context()

	ok, cur, err := fence.CommitIfNewer(ctx, "fenced_resource", "k", 5, nil)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, int64(5), cur)
	assert.Len(t, f.stmts, 2, "update on no row, then insert")

	ok, cur, err = fence.CommitIfNewer(ctx, "fenced_resource", "k", 5, []byte("same token"))
	require.NoError(t, err)
	assert.True(t, ok, "the same token commits again")
	assert.Equal(t, int64(5), cur)

	ok, cur, err = fence.CommitIfNewer(ctx, "fenced_resource", "k", 4, []byte("stale"))
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Equal(t, int64(5), cur)

	token, value, err := fence.Load(ctx, "fenced_resource", "k")
	require.NoError(t, err)
	assert.Equal(t, int64(5), token)
	assert.Equal(t, []byte("same token"), value)
}

func TestFence_InsertRaceEndsInOneMoreUpdate(t *testing.T) {
	for _, c := range []struct {
		rival int64
		won   bool
		cur   int64
	}{{3, true, 7}, {9, false, 9}} {
		f := &fakeFence{before: func(f *fakeFence, stmt string) {
			if strings.HasPrefix(stmt, "INSERT") && !f.exists {
				f.exists, f.token = true, c.rival // another writer inserted first
			}
		}}
		ok, cur, err := newTestFence(t, f).CommitIfNewer(t.Context(), "t", "k", 7, []byte("v"))
		require.NoError(t, err)
		assert.Equal(t, c.won, ok, "rival %d", c.rival)
		assert.Equal(t, c.cur, cur)
		assert.LessOrEqual(t, len(f.stmts), 3)
	}
}

func TestFence_UnknownOutcomeAndRefusals(t *testing.T) {
	f := &fakeFence{casErr: codeFrame(CodeCASWriteUnknown)}
	fence := newTestFence(t, f)
	ok, _, err := fence.CommitIfNewer(t.Context(), "t", "k", 1, nil)
	assert.False(t, ok)
	assert.ErrorIs(t, err, lockstep.ErrUnknownOutcome)

	f.stmts = nil
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, c := range []struct {
		ctx        context.Context
		table, key string
		token      int64
		want       string
	}{
		{t.Context(), "Bad", "k", 1, "not a safe identifier"},
		{t.Context(), "t", "", 1, "non-empty"},
		{t.Context(), "t", "\xff", 1, "UTF-8"},
		{t.Context(), "t", "k", 0, "positive"},
		{cancelled, "t", "k", 1, "canceled"},
	} {
		_, _, err := fence.CommitIfNewer(c.ctx, c.table, c.key, c.token, nil)
		assert.ErrorContains(t, err, c.want)
		assert.NotErrorIs(t, err, lockstep.ErrUnknownOutcome)
	}
	assert.Empty(t, f.stmts, "refusals send nothing")
	token, value, err := fence.Load(t.Context(), "t", "never")
	assert.NoError(t, err)
	assert.Zero(t, token)
	assert.Nil(t, value)
}

func TestFenceStatements_ConditionAllowsTheSameToken(t *testing.T) {
	st, err := newTestFence(t, &fakeFence{}).StatementsFor("fenced_resource")
	require.NoError(t, err)
	assert.Equal(t, "UPDATE ks.fenced_resource SET fence_token = ?, value = ? WHERE row_key = ? IF fence_token <= ?", st.Update)
	assert.Equal(t, "INSERT INTO ks.fenced_resource (row_key, fence_token, value) VALUES (?, ?, ?) IF NOT EXISTS", st.Insert)
	assert.Equal(t, "SELECT fence_token, value FROM ks.fenced_resource WHERE row_key = ?", st.Load)
}

func TestNewFence_RefusesUnsafeKeyspaceAndNonSerialLevels(t *testing.T) {
	newDriver := func(Level, Level) FenceDriver { return &fakeFence{} }
	_, err := NewFence(newDriver, testErrors, "ks; DROP", Serial)
	assert.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	_, err = NewFence(newDriver, testErrors, "ks", Quorum)
	assert.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	var commit Level
	_, err = NewFence(func(_, c Level) FenceDriver { commit = c; return &fakeFence{} }, testErrors, "ks", LocalSerial)
	require.NoError(t, err)
	assert.Equal(t, LocalQuorum, commit)
}
