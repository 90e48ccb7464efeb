package cassandra

import (
	"context"
	"errors"
	"fmt"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
)

// writeError classifies the error of a write or delete. If the mutation may
// have reached replicas, the result wraps lockstep.ErrUnknownOutcome as well
// as err; otherwise it wraps err alone. Either way errors.Is and errors.As
// still find the driver's error and a ctx error.
func writeError(op, table string, err error) error {
	if err == nil {
		return nil
	}
	if maybeApplied(err) {
		return fmt.Errorf("cassandra: %s %s: %w: %w", op, table, lockstep.ErrUnknownOutcome, err)
	}
	return fmt.Errorf("cassandra: %s %s: %w%s", op, table, err, hint(err))
}

// readError wraps the error of a read. A failed read changes nothing, so it
// is always a plain failure.
func readError(table string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("cassandra: read %s: %w%s", table, err, hint(err))
}

// hint tells what to do about an error the user can fix: a role lacking a
// permission (Cassandra's message names the permission and the table).
func hint(err error) string {
	var reqErr gocql.RequestError
	if errors.As(err, &reqErr) && reqErr.Code() == gocql.ErrCodeUnauthorized {
		return " (grant that permission on the table to the session's role; docs/security.md lists the grants each lockstep role needs)"
	}
	return ""
}

// maybeApplied reports whether a write that failed with err may nevertheless
// have been applied by some replica. It answers false only for errors that
// Cassandra or gocql raise before the mutation is sent to any replica; every
// other error, including ones it does not know, counts as maybe applied,
// because calling a write that was applied "failed" could leave a cell
// behind that the algorithm does not know it wrote, while the converse only
// costs a cleanup of a cell that is not there.
func maybeApplied(err error) bool {
	// The coordinator sent the mutation and did not hear back from enough
	// replicas in time, or some replicas failed it: some may have applied it.
	var (
		writeTimeout *gocql.RequestErrWriteTimeout
		writeFailure *gocql.RequestErrWriteFailure
		casUnknown   *gocql.RequestErrCASWriteUnknown
		cdcFailure   *gocql.RequestErrCDCWriteFailure
	)
	if errors.As(err, &writeTimeout) || errors.As(err, &writeFailure) ||
		errors.As(err, &casUnknown) || errors.As(err, &cdcFailure) {
		return true
	}
	// The request was sent but no answer came: the client gave up waiting
	// (its own timeout or the caller's ctx) or the connection died.
	if errors.Is(err, gocql.ErrTimeoutNoResponse) || errors.Is(err, gocql.ErrConnectionClosed) ||
		errors.Is(err, gocql.ErrTooManyTimeouts) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	// The coordinator refused the request before forwarding it.
	var unavailable *gocql.RequestErrUnavailable
	if errors.As(err, &unavailable) {
		return false
	}
	var reqErr gocql.RequestError
	if errors.As(err, &reqErr) {
		switch reqErr.Code() {
		case gocql.ErrCodeUnavailable, gocql.ErrCodeOverloaded, gocql.ErrCodeBootstrapping,
			gocql.ErrCodeSyntax, gocql.ErrCodeInvalid, gocql.ErrCodeUnauthorized,
			gocql.ErrCodeConfig, gocql.ErrCodeCredentials, gocql.ErrCodeProtocol,
			gocql.ErrCodeUnprepared, gocql.ErrCodeAlreadyExists:
			return false
		}
		// ErrCodeServer and anything newer: the coordinator may have failed
		// half-way through.
		return true
	}
	// The driver refused the request before sending it.
	for _, notSent := range []error{
		gocql.ErrNoConnections, gocql.ErrSessionClosed, gocql.ErrQueryArgLength,
		gocql.ErrNoStreams, gocql.ErrTooManyStmts, gocql.ErrUnavailable,
		gocql.ErrNoKeyspace, gocql.ErrKeyspaceDoesNotExist,
	} {
		if errors.Is(err, notSent) {
			return false
		}
	}
	var marshal gocql.MarshalError
	return !errors.As(err, &marshal)
}
