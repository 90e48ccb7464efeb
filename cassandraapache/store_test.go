package cassandraapache

import (
	"context"
	"fmt"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// session is a non-nil session for tests that never reach the network: New
// does not contact the cluster, and refusals return before any request is
// built (a request on it would panic).
var session = &gocql.Session{}

func TestNew_RefusesNilSessionUnsafeKeyspaceAndBadLevels(t *testing.T) {
	s, err := New(nil, "locks")
	assert.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.Nil(t, s)
	for _, ks := range []string{"", "Locks", "locks.x", "locks; DROP KEYSPACE x", `"locks"`} {
		_, err := New(session, ks)
		assert.ErrorIs(t, err, lockstep.ErrInvalidConfig, "%q", ks)
	}
	for _, p := range [][2]gocql.Consistency{{gocql.One, gocql.One}, {gocql.Quorum, gocql.LocalQuorum}, {gocql.Serial, gocql.Serial}, {gocql.Quorum, gocql.Any}, {gocql.LocalQuorum, gocql.LocalQuorum}} {
		_, err := New(session, "locks", WithConsistency(p[0], p[1]))
		assert.ErrorIs(t, err, lockstep.ErrInvalidConfig, "read %v write %v", p[0], p[1])
	}
	for _, p := range [][2]gocql.Consistency{{gocql.Quorum, gocql.LocalQuorum}, {gocql.LocalQuorum, gocql.Quorum}} {
		_, err := New(session, "locks", WithConsistency(p[0], p[1]))
		assert.ErrorContains(t, err, fmt.Sprintf("read %v, write %v: reads and writes do not overlap", p[0], p[1]))
		assert.ErrorContains(t, err, "use QUORUM reads and writes, or EACH_QUORUM writes with LOCAL_QUORUM reads", "says what to use")
	}
	for _, p := range [][2]gocql.Consistency{{gocql.Quorum, gocql.EachQuorum}, {gocql.LocalQuorum, gocql.EachQuorum}, {gocql.One, gocql.All}} {
		_, err := New(session, "locks", WithConsistency(p[0], p[1]))
		assert.NoError(t, err, "read %v write %v", p[0], p[1])
	}
}

func TestWithLocalDC_IsADCLocalStoreAtLocalQuorum(t *testing.T) {
	s, err := New(session, "locks", WithLocalDC("dc1"))
	require.NoError(t, err)
	assert.Equal(t, lockstep.LocalTo("dc1"), lockstep.ScopeOf(s))
	assert.Equal(t, gocql.LocalQuorum, s.driver.read)
	assert.Equal(t, gocql.LocalQuorum, s.driver.write)
	_, err = New(session, "locks", WithConsistency(gocql.LocalQuorum, gocql.LocalQuorum))
	assert.ErrorContains(t, err, "cannot keep a global lock global")
	_, err = New(session, "locks", WithLocalDC("dc\x00"))
	assert.ErrorIs(t, err, lockstep.ErrInvalidConfig)
}

func TestNew_DefaultsToQuorum(t *testing.T) {
	s, err := New(session, "locks")
	require.NoError(t, err)
	assert.Equal(t, gocql.Quorum, s.driver.read)
	assert.Equal(t, gocql.Quorum, s.driver.write)
}

func TestStore_BadInputIsRefusedBeforeSending(t *testing.T) {
	s, err := New(session, "locks")
	require.NoError(t, err)
	ctx := t.Context()
	for _, table := range []string{"", "Queue", "queue_lock; DROP TABLE x"} {
		assert.ErrorIs(t, s.Put(ctx, table, "r", lockstep.Cell{Column: "c", TTL: time.Second}), lockstep.ErrInvalidConfig)
		assert.ErrorIs(t, s.Delete(ctx, table, "r", 1, "c"), lockstep.ErrInvalidConfig)
		_, err := s.Read(ctx, table, "r", lockstep.Slice{})
		assert.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	}
	assert.ErrorIs(t, s.Put(ctx, "queue_lock", "r", lockstep.Cell{Column: "c", TTL: 1500 * time.Millisecond}), lockstep.ErrInvalidConfig)
	done, cancel := context.WithCancel(ctx)
	cancel()
	err = s.Put(done, "queue_lock", "r", lockstep.Cell{Column: "c", TTL: time.Second})
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, lockstep.ErrUnknownOutcome, "nothing was sent")
}

func TestNewFenceStore_RefusesBadConfigAndInput(t *testing.T) {
	_, err := NewFenceStore(nil, "ks")
	assert.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	_, err = NewFenceStore(session, "ks", WithSerialConsistency(gocql.Quorum))
	assert.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	_, err = NewFenceStore(session, "ks", WithSerialConsistency(gocql.LocalSerial))
	assert.ErrorContains(t, err, "LOCAL_SERIAL cannot order fenced writers in two data centres")
	s, err := NewFenceStore(session, "ks", WithSerialConsistency(gocql.LocalSerial), WithFenceLocalDC("dc1"))
	require.NoError(t, err)
	assert.Equal(t, gocql.LocalQuorum, s.commit)
	_, _, err = s.CommitIfNewer(t.Context(), "t", "k", 0, nil)
	assert.ErrorContains(t, err, "must be positive")
	_, _, err = s.Load(t.Context(), "t", "")
	assert.ErrorContains(t, err, "non-empty")
}
