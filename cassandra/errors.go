package cassandra

import (
	"errors"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep/internal/cqlstore"
)

// storeErrors prefixes this package's errors and classifies gocql's.
var storeErrors = cqlstore.Errors{Name: "cassandra", Classify: classify}

// classify sorts the gocql errors whose meaning the protocol code alone does
// not give (package cqlstore decides the rest, see cqlstore.Errors):
//
//   - a coordinator write timeout or write failure (CAS and CDC included):
//     some replicas may have applied the mutation;
//   - no response in time, the connection closed or timed out too often
//     while the request was in flight: it was sent, no answer came;
//   - unavailable: the coordinator refused before forwarding;
//   - no hosts, session closed, no free stream, wrong argument count, too
//     many statements, no keyspace, a value that does not marshal: the
//     driver refused before sending.
func classify(err error) cqlstore.Outcome {
	var (
		writeTimeout *gocql.RequestErrWriteTimeout
		writeFailure *gocql.RequestErrWriteFailure
		casUnknown   *gocql.RequestErrCASWriteUnknown
		cdcFailure   *gocql.RequestErrCDCWriteFailure
		unavailable  *gocql.RequestErrUnavailable
		marshal      gocql.MarshalError
	)
	switch {
	case errors.As(err, &writeTimeout), errors.As(err, &writeFailure),
		errors.As(err, &casUnknown), errors.As(err, &cdcFailure),
		errors.Is(err, gocql.ErrTimeoutNoResponse), errors.Is(err, gocql.ErrConnectionClosed),
		errors.Is(err, gocql.ErrTooManyTimeouts):
		return cqlstore.MaybeApplied
	case errors.As(err, &unavailable), errors.As(err, &marshal):
		return cqlstore.NotApplied
	}
	for _, notSent := range []error{
		gocql.ErrNoConnections, gocql.ErrSessionClosed, gocql.ErrQueryArgLength,
		gocql.ErrNoStreams, gocql.ErrTooManyStmts, gocql.ErrUnavailable,
		gocql.ErrNoKeyspace, gocql.ErrKeyspaceDoesNotExist,
	} {
		if errors.Is(err, notSent) {
			return cqlstore.NotApplied
		}
	}
	return cqlstore.Undecided
}
