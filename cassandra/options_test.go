package cassandra

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// session is a non-nil session for tests that never reach the network: New
// does not contact the cluster, and validation failures return before any
// request is built.
var session = &gocql.Session{}

func TestNew_NilSessionIsInvalidConfig(t *testing.T) {
	s, err := New(nil, "locks")
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.Nil(t, s)
	assert.EqualError(t, err, "lockstep: invalid configuration: session: nil *gocql.Session: "+
		"pass a connected session, the one cluster.CreateSession() returned (cluster := gocql.NewCluster(hosts...))")
	_, err = NewFenceStore(nil, "locks")
	assert.ErrorContains(t, err, "pass a connected session, the one cluster.CreateSession() returned")
}

func TestNew_RefusesUnsafeKeyspace(t *testing.T) {
	for _, ks := range []string{"", "Locks", "locks.x", "locks; DROP KEYSPACE x", `"locks"`, "9locks"} {
		if _, err := New(session, ks); !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("%q: got %v, want ErrInvalidConfig", ks, err)
		}
	}
}

func TestNew_DefaultsToQuorum(t *testing.T) {
	s, err := New(session, "locks")
	if err != nil {
		t.Fatal(err)
	}
	if s.driver.read != gocql.Quorum || s.driver.write != gocql.Quorum {
		t.Fatalf("got read %v write %v, want QUORUM both", s.driver.read, s.driver.write)
	}
}

func TestWithConsistency_AcceptsOnlyOverlappingPairs(t *testing.T) {
	c := func(s string) gocql.Consistency {
		var x gocql.Consistency
		if err := x.UnmarshalText([]byte(s)); err != nil {
			t.Fatal(err)
		}
		return x
	}
	ok := [][2]string{
		{"QUORUM", "QUORUM"},
		{"QUORUM", "EACH_QUORUM"},
		{"LOCAL_QUORUM", "EACH_QUORUM"},
		{"ALL", "ONE"},
		{"ONE", "ALL"},
		{"LOCAL_ONE", "ALL"},
		{"ALL", "ALL"},
	}
	bad := [][2]string{
		{"LOCAL_QUORUM", "LOCAL_QUORUM"}, // global by default: refused
		{"ONE", "ONE"},
		{"ONE", "QUORUM"},
		{"QUORUM", "ONE"},
		{"TWO", "TWO"},
		{"QUORUM", "LOCAL_QUORUM"},
		{"LOCAL_QUORUM", "QUORUM"},
		{"EACH_QUORUM", "QUORUM"},
		{"ALL", "ANY"},
		{"QUORUM", "ANY"},
	}
	for _, p := range ok {
		if _, err := New(session, "locks", WithConsistency(c(p[0]), c(p[1]))); err != nil {
			t.Errorf("read %s write %s refused: %v", p[0], p[1], err)
		}
	}
	for _, p := range bad {
		if _, err := New(session, "locks", WithConsistency(c(p[0]), c(p[1]))); !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("read %s write %s: got %v, want ErrInvalidConfig", p[0], p[1], err)
		}
	}
	// Serial levels are not regular consistency levels at all.
	serial := gocql.Consistency(gocql.Serial)
	if _, err := New(session, "locks", WithConsistency(serial, serial)); !errors.Is(err, lockstep.ErrInvalidConfig) {
		t.Errorf("SERIAL: got %v, want ErrInvalidConfig", err)
	}
}

func TestNew_GlobalStoreRefusesLocalQuorumAndSaysWhatToUse(t *testing.T) {
	_, err := New(session, "locks", WithConsistency(gocql.LocalQuorum, gocql.LocalQuorum))
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.ErrorContains(t, err, "read LOCAL_QUORUM, write LOCAL_QUORUM cannot keep a global lock global")
	assert.ErrorContains(t, err, "use QUORUM reads and writes, or EACH_QUORUM writes with LOCAL_QUORUM reads")
	assert.ErrorContains(t, err, "WithLocalDC")
}

// QUORUM with LOCAL_QUORUM, either way, is refused naming the pair and
// what to use; every pair is tested in cassandra/cqlstore.
func TestNew_RefusesQuorumWithLocalQuorumAndSaysWhatToUse(t *testing.T) {
	for _, p := range [][2]gocql.Consistency{{gocql.Quorum, gocql.LocalQuorum}, {gocql.LocalQuorum, gocql.Quorum}} {
		_, err := New(session, "locks", WithConsistency(p[0], p[1]))
		require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
		assert.ErrorContains(t, err, fmt.Sprintf("read %v, write %v: reads and writes do not overlap", p[0], p[1]))
		assert.ErrorContains(t, err, "use QUORUM reads and writes, or EACH_QUORUM writes with LOCAL_QUORUM reads")
		_, err = New(session, "locks", WithLocalDC("dc1"), WithConsistency(p[0], p[1]))
		require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
		assert.ErrorContains(t, err, "use LOCAL_QUORUM reads and writes")
	}
}

func TestWithLocalDC_IsADCLocalStoreAtLocalQuorum(t *testing.T) {
	for _, opts := range [][]Option{
		{WithLocalDC("dc1")},
		{WithLocalDC("dc1"), WithConsistency(gocql.LocalQuorum, gocql.LocalQuorum)},
		{WithConsistency(gocql.LocalQuorum, gocql.LocalQuorum), WithLocalDC("dc1")},
	} {
		s, err := New(session, "locks", opts...)
		require.NoError(t, err)
		assert.Equal(t, lockstep.LocalTo("dc1"), s.Scope())
		assert.Equal(t, lockstep.LocalTo("dc1"), lockstep.ScopeOf(s))
		assert.Equal(t, gocql.LocalQuorum, s.driver.read)
		assert.Equal(t, gocql.LocalQuorum, s.driver.write)
	}
	s, err := New(session, "locks", WithLocalDC("dc1"), WithConsistency(gocql.Quorum, gocql.Quorum))
	require.NoError(t, err)
	assert.Equal(t, gocql.Quorum, s.driver.read)
	_, err = New(session, "locks", WithLocalDC(""))
	assert.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	_, err = New(session, "locks", WithLocalDC("dc1"), WithConsistency(gocql.LocalOne, gocql.LocalOne))
	assert.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	g, err := New(session, "locks")
	require.NoError(t, err)
	assert.True(t, g.Scope().IsGlobal())
}
