package cassandra

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
)

// codeError is a server error frame of a given code, as gocql returns for
// codes it has no type for (overloaded, bootstrapping, server error...).
type codeError int

func (e codeError) Code() int       { return int(e) }
func (e codeError) Message() string { return fmt.Sprintf("code 0x%x", int(e)) }
func (e codeError) Error() string   { return e.Message() }

func TestWriteError_ClassifiesDriverErrors(t *testing.T) {
	cases := []struct {
		name         string
		err          error
		maybeApplied bool
	}{
		{"coordinator write timeout", &gocql.RequestErrWriteTimeout{WriteType: "SIMPLE"}, true},
		{"batch write timeout", &gocql.RequestErrWriteTimeout{WriteType: "UNLOGGED_BATCH"}, true},
		{"write failure", &gocql.RequestErrWriteFailure{}, true},
		{"cas write unknown", &gocql.RequestErrCASWriteUnknown{}, true},
		{"no response in time", gocql.ErrTimeoutNoResponse, true},
		{"connection closed mid-request", gocql.ErrConnectionClosed, true},
		{"too many timeouts", gocql.ErrTooManyTimeouts, true},
		{"ctx deadline in flight", context.DeadlineExceeded, true},
		{"ctx cancelled in flight", context.Canceled, true},
		{"wrapped deadline", fmt.Errorf("gocql: %w", context.DeadlineExceeded), true},
		{"server error", codeError(gocql.ErrCodeServer), true},
		{"unknown error", io.ErrUnexpectedEOF, true},
		{"unavailable", &gocql.RequestErrUnavailable{Required: 2, Alive: 1}, false},
		{"overloaded", codeError(gocql.ErrCodeOverloaded), false},
		{"bootstrapping", codeError(gocql.ErrCodeBootstrapping), false},
		{"invalid request", codeError(gocql.ErrCodeInvalid), false},
		{"syntax", codeError(gocql.ErrCodeSyntax), false},
		{"unauthorized", codeError(gocql.ErrCodeUnauthorized), false},
		{"no hosts", gocql.ErrNoConnections, false},
		{"session closed", gocql.ErrSessionClosed, false},
		{"no streams", gocql.ErrNoStreams, false},
		{"marshal", gocql.MarshalError("bad value"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := storeErrors.Write("put", "queue_lock", c.err)
			if got := errors.Is(err, lockstep.ErrUnknownOutcome); got != c.maybeApplied {
				t.Errorf("ErrUnknownOutcome = %v, want %v (%v)", got, c.maybeApplied, err)
			}
			if !errors.Is(err, c.err) {
				t.Errorf("original error not wrapped: %v", err)
			}
		})
	}
}

func TestWriteError_KeepsTypedDriverErrorReachable(t *testing.T) {
	err := storeErrors.Write("delete", "queue_lock", &gocql.RequestErrWriteTimeout{Received: 1, BlockFor: 2})
	var wt *gocql.RequestErrWriteTimeout
	if !errors.As(err, &wt) || wt.BlockFor != 2 {
		t.Fatalf("errors.As lost the write timeout: %v", err)
	}
}

func TestReadError_IsNeverAnUnknownOutcome(t *testing.T) {
	for _, e := range []error{&gocql.RequestErrReadTimeout{}, gocql.ErrTimeoutNoResponse, context.DeadlineExceeded} {
		err := storeErrors.Read("queue_lock", e)
		if errors.Is(err, lockstep.ErrUnknownOutcome) || !errors.Is(err, e) {
			t.Errorf("%v: got %v", e, err)
		}
	}
	if storeErrors.Write("put", "t", nil) != nil || storeErrors.Read("t", nil) != nil {
		t.Error("nil error classified as an error")
	}
}
