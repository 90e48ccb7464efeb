package cassandraapache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// codeError is a server error frame of a given code, as the driver returns
// for codes it has no type for.
type codeError int

func (e codeError) Code() int       { return int(e) }
func (e codeError) Message() string { return fmt.Sprintf("code 0x%x", int(e)) }
func (e codeError) Error() string   { return e.Message() }

var _ gocql.RequestError = codeError(0)

// The v2 driver's own error values and types, each classified as a write
// error: true means lockstep.ErrUnknownOutcome.
func TestWriteError_ClassifiesV2DriverErrors(t *testing.T) {
	cases := []struct {
		name         string
		err          error
		maybeApplied bool
	}{
		{"write timeout", &gocql.RequestErrWriteTimeout{WriteType: "SIMPLE"}, true},
		{"batch write timeout", &gocql.RequestErrWriteTimeout{WriteType: "UNLOGGED_BATCH"}, true},
		{"CAS write timeout", &gocql.RequestErrWriteTimeout{WriteType: "CAS"}, true},
		{"write failure", &gocql.RequestErrWriteFailure{}, true},
		{"CAS write unknown", &gocql.RequestErrCASWriteUnknown{}, true},
		{"CDC write failure", &gocql.RequestErrCDCWriteFailure{}, true},
		{"read timeout during a write", &gocql.RequestErrReadTimeout{}, true},
		{"no response in time", gocql.ErrTimeoutNoResponse, true},
		{"connection closed mid-request", gocql.ErrConnectionClosed, true},
		{"request cancelled in flight", context.Canceled, true},
		{"ctx deadline in flight", fmt.Errorf("gocql: %w", context.DeadlineExceeded), true},
		{"server error frame", codeError(gocql.ErrCodeServer), true},
		{"write timeout frame", codeError(gocql.ErrCodeWriteTimeout), true},
		{"unknown error", io.ErrUnexpectedEOF, true},
		{"unavailable", &gocql.RequestErrUnavailable{Required: 2, Alive: 1}, false},
		{"overloaded", &gocql.RequestErrOverloaded{}, false},
		{"bootstrapping", &gocql.RequestErrBootstrapping{}, false},
		{"unavailable frame", codeError(gocql.ErrCodeUnavailable), false},
		{"invalid request frame", codeError(gocql.ErrCodeInvalid), false},
		{"syntax frame", codeError(gocql.ErrCodeSyntax), false},
		{"unauthorized frame", codeError(gocql.ErrCodeUnauthorized), false},
		{"no hosts", gocql.ErrNoConnections, false},
		{"no hosts, wrapped", fmt.Errorf("query: %w", gocql.ErrNoConnections), false},
		{"session closed", gocql.ErrSessionClosed, false},
		{"no streams", gocql.ErrNoStreams, false},
		{"marshal", gocql.MarshalError("bad value"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := storeErrors.Write("put", "queue_lock", c.err)
			assert.Equal(t, c.maybeApplied, errors.Is(err, lockstep.ErrUnknownOutcome), "%v", err)
			assert.ErrorIs(t, err, c.err, "the driver's error stays reachable")
			assert.Contains(t, err.Error(), "cassandraapache: put queue_lock: ")
		})
	}
}

func TestWriteError_KeepsTypedDriverErrorReachable(t *testing.T) {
	err := storeErrors.Write("delete", "queue_lock", &gocql.RequestErrWriteTimeout{Received: 1, BlockFor: 2})
	var wt *gocql.RequestErrWriteTimeout
	if assert.ErrorAs(t, err, &wt) {
		assert.Equal(t, 2, wt.BlockFor)
	}
}

func TestReadError_IsNeverAnUnknownOutcome(t *testing.T) {
	for _, e := range []error{&gocql.RequestErrReadTimeout{}, &gocql.RequestErrUnavailable{},
		gocql.ErrTimeoutNoResponse, gocql.ErrNoConnections, context.DeadlineExceeded} {
		err := storeErrors.Read("queue_lock", e)
		assert.NotErrorIs(t, err, lockstep.ErrUnknownOutcome)
		assert.ErrorIs(t, err, e)
	}
}

// A request refused for a missing permission keeps the driver's error (which
// names the permission and the table) and says what to grant, as the gocql
// store's do; other errors carry no such hint.
func TestErrors_UnauthorizedSaysWhatToGrant(t *testing.T) {
	denied := codeError(gocql.ErrCodeUnauthorized)
	for _, err := range []error{storeErrors.Write("write", "queue_lock", denied), storeErrors.Read("fleet_phase", denied)} {
		var reqErr gocql.RequestError
		require.True(t, errors.As(err, &reqErr))
		assert.Contains(t, err.Error(), "docs/security.md")
	}
	for _, err := range []error{storeErrors.Write("write", "queue_lock", codeError(gocql.ErrCodeInvalid)), storeErrors.Read("t", codeError(gocql.ErrCodeOverloaded))} {
		assert.NotContains(t, err.Error(), "grant")
	}
}
