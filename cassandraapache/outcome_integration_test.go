//go:build integration

package cassandraapache_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandraapache"
	"github.com/lockstep-go/lockstep/fence"
)

// The outcomes a node can be made to give on demand, each classified by the
// v2 store as a definite failure or an unknown outcome. (Server-side write
// and read timeouts need a replica that is slow or down while enough others
// answer; their classification is covered by the unit tests with the
// driver's error types.)

// TestOutcome_UnavailableWriteIsAPlainFailure writes at ALL into a keyspace
// with more replicas than nodes: the coordinator refuses it before
// forwarding.
func TestOutcome_UnavailableWriteIsAPlainFailure(t *testing.T) {
	session, hosts := itSession(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	const ks = "lockstep_it_v2_unavailable"
	require.NoError(t, applySchema(ctx, session, ks, []string{"-rf", strconv.Itoa(hosts + 1)}))
	store, err := cassandraapache.New(session, ks, cassandraapache.WithConsistency(gocql.All, gocql.All))
	require.NoError(t, err)
	err = store.Put(ctx, "queue_lock", "r", lockstep.Cell{Column: "c", Timestamp: time.Now().UnixMicro(), TTL: time.Minute})
	var unavailable *gocql.RequestErrUnavailable
	require.ErrorAs(t, err, &unavailable)
	assert.NotErrorIs(t, err, lockstep.ErrUnknownOutcome)
	assert.Equal(t, hosts+1, unavailable.Required)
	_, err = store.Read(ctx, "queue_lock", "r", lockstep.Slice{})
	require.ErrorAs(t, err, &unavailable)
	assert.NotErrorIs(t, err, lockstep.ErrUnknownOutcome)
}

// TestOutcome_CancelledInFlightIsAnUnknownOutcome cancels writes after
// growing delays: a cancel that lands before the store hands the request to
// the driver is a plain ctx error, one that lands after an unknown outcome
// (the store cannot tell whether the driver had sent it), and both keep
// errors.Is(err, context.Canceled). At least one must land after.
func TestOutcome_CancelledInFlightIsAnUnknownOutcome(t *testing.T) {
	store := newStore(t)
	fences, err := cassandraapache.NewFenceStore(mustSession(t), itKeyspace)
	require.NoError(t, err)
	row := "cancel/" + strconv.FormatInt(time.Now().UnixNano(), 36)
	var cells []lockstep.Cell
	for i := range 20 {
		cells = append(cells, lockstep.Cell{Column: fmt.Sprintf("c%02d", i), Value: []byte("v"), Timestamp: time.Now().UnixMicro(), TTL: time.Minute})
	}
	ops := map[string]func(ctx context.Context) error{
		"put": func(ctx context.Context) error { return store.Put(ctx, "queue_lock", row, cells...) },
		"fence commit": func(ctx context.Context) error {
			_, _, err := fences.CommitIfNewer(ctx, fence.DefaultTable, row, time.Now().UnixNano(), []byte("v"))
			return err
		},
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			inFlight := 0
			for delay := 50 * time.Microsecond; delay < time.Second && inFlight < 3; delay += delay / 2 {
				ctx, cancel := context.WithCancel(t.Context())
				timer := time.AfterFunc(delay, cancel)
				err := op(ctx)
				timer.Stop()
				cancel()
				if err == nil {
					continue // answered before the cancel
				}
				require.ErrorIs(t, err, context.Canceled, "after %v", delay)
				if errors.Is(err, lockstep.ErrUnknownOutcome) {
					inFlight++
				}
			}
			require.Positive(t, inFlight, "no cancel landed while a request was in flight")
		})
	}
}

func mustSession(t *testing.T) *gocql.Session {
	session, _ := itSession(t)
	return session
}

// TestOutcome_ClosedSessionIsAPlainFailure: the driver refuses before
// sending, so nothing can have been applied.
func TestOutcome_ClosedSessionIsAPlainFailure(t *testing.T) {
	itSession(t) // the keyspace exists
	session, err := newSession(t, 20*time.Second)
	require.NoError(t, err)
	store, err := cassandraapache.New(session, itKeyspace)
	require.NoError(t, err)
	session.Close()
	err = store.Put(t.Context(), "queue_lock", "closed", lockstep.Cell{Column: "c", Timestamp: 1, TTL: time.Minute})
	require.ErrorIs(t, err, gocql.ErrSessionClosed)
	assert.NotErrorIs(t, err, lockstep.ErrUnknownOutcome)
	_, err = store.Read(t.Context(), "queue_lock", "closed", lockstep.Slice{})
	assert.ErrorIs(t, err, gocql.ErrSessionClosed)
}

// faultDialer connects the driver to the node for real and, when told,
// withholds the node's answers (stall) or cuts the connection as an answer
// arrives (cut): the request reaches the node and is applied there, and the
// client hears nothing, or loses the connection.
type faultDialer struct {
	net.Dialer
	stall, cut atomic.Bool
}

func (d *faultDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.Dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &faultConn{Conn: c, d: d}, nil
}

type faultConn struct {
	net.Conn
	d *faultDialer
}

func (c *faultConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.d.cut.Load() {
		_ = c.Conn.Close()
		return 0, io.ErrUnexpectedEOF
	}
	for c.d.stall.Load() {
		time.Sleep(time.Millisecond) // hold the answer back until released
	}
	return n, err
}

// faultySession connects a session through a faultDialer, its requests
// timing out after timeout.
func faultySession(t *testing.T, timeout time.Duration) (*gocql.Session, *faultDialer) {
	itSession(t) // the keyspace exists
	d := &faultDialer{Dialer: net.Dialer{Timeout: 20 * time.Second}}
	cluster := gocql.NewCluster(hosts(t)...)
	cluster.Timeout = timeout
	cluster.ConnectTimeout = 20 * time.Second
	cluster.Dialer = d
	session, err := cluster.CreateSession()
	require.NoError(t, err)
	t.Cleanup(func() { d.stall.Store(false); d.cut.Store(false); session.Close() })
	// Prepare the statements first, so the faults hit the execution of a
	// write, not its preparation (which the driver does before sending it).
	store, err := cassandraapache.New(session, itKeyspace)
	require.NoError(t, err)
	warm := "warm/" + strconv.FormatInt(time.Now().UnixNano(), 36)
	require.NoError(t, store.Put(t.Context(), "queue_lock", warm, lockstep.Cell{Column: "c", Timestamp: time.Now().UnixMicro(), TTL: time.Minute}))
	_, err = store.Read(t.Context(), "queue_lock", warm, lockstep.Slice{})
	require.NoError(t, err)
	return session, d
}

// TestOutcome_NoAnswerIsAnUnknownOutcomeAndTheWriteMayBeThere: the node
// applies the write and its answer is withheld past the request timeout;
// the store says unknown outcome, and the cell is indeed there. A read that
// hears nothing is a plain failure.
func TestOutcome_NoAnswerIsAnUnknownOutcomeAndTheWriteMayBeThere(t *testing.T) {
	session, d := faultySession(t, 500*time.Millisecond)
	store, err := cassandraapache.New(session, itKeyspace)
	require.NoError(t, err)
	row := "noanswer/" + strconv.FormatInt(time.Now().UnixNano(), 36)
	d.stall.Store(true)
	err = store.Put(t.Context(), "queue_lock", row, lockstep.Cell{Column: "c", Value: []byte("v"), Timestamp: time.Now().UnixMicro(), TTL: time.Minute})
	t.Logf("write without an answer: %v", err)
	require.ErrorIs(t, err, lockstep.ErrUnknownOutcome)
	assert.ErrorIs(t, err, gocql.ErrTimeoutNoResponse)
	_, err = store.Read(t.Context(), "queue_lock", row, lockstep.Slice{})
	require.ErrorIs(t, err, gocql.ErrTimeoutNoResponse)
	assert.NotErrorIs(t, err, lockstep.ErrUnknownOutcome)
	d.stall.Store(false)
	requireApplied(t, row)
}

// TestOutcome_ConnectionLostIsAnUnknownOutcomeAndTheWriteMayBeThere: the
// connection breaks as the node's answer arrives.
func TestOutcome_ConnectionLostIsAnUnknownOutcomeAndTheWriteMayBeThere(t *testing.T) {
	session, d := faultySession(t, 5*time.Second)
	store, err := cassandraapache.New(session, itKeyspace)
	require.NoError(t, err)
	row := "cut/" + strconv.FormatInt(time.Now().UnixNano(), 36)
	d.cut.Store(true)
	err = store.Put(t.Context(), "queue_lock", row, lockstep.Cell{Column: "c", Value: []byte("v"), Timestamp: time.Now().UnixMicro(), TTL: time.Minute})
	d.cut.Store(false)
	t.Logf("write on a cut connection: %v", err)
	require.Error(t, err)
	require.ErrorIs(t, err, lockstep.ErrUnknownOutcome, "%v", err)
	requireApplied(t, row)
}

// requireApplied checks, through the shared session, that the cell the
// failed write carried reached the node: what "unknown outcome" warns of.
// On one node the fault hits only the answer to the write, so the write is
// there. With several nodes the driver's other connections (the control
// connection's events, other hosts' pools) read through the same faulty
// dialer, and a cut or a stall can strike one of them first, so the write
// may never have left: the outcome is still unknown to the caller, which is
// all the store promises, and the test only reports which way it went.
func requireApplied(t *testing.T, row string) {
	t.Helper()
	cells, err := newStore(t).Read(t.Context(), "queue_lock", row, lockstep.Slice{})
	require.NoError(t, err)
	if len(hosts(t)) > 1 {
		t.Logf("%d node(s): the write whose outcome was unknown was applied: %v", len(hosts(t)), len(cells) == 1)
		return
	}
	require.Len(t, cells, 1, "the write whose outcome was unknown was applied")
}
