package cassandrav2

import (
	"errors"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/lockstep-go/lockstep/internal/cqlstore"
)

// storeErrors prefixes this package's errors and classifies the v2 driver's.
var storeErrors = cqlstore.Errors{Name: "cassandrav2", Classify: classify}

// classify sorts the v2 driver's errors whose meaning the protocol code
// alone does not give (package cqlstore decides the rest, the caller's ctx
// first):
//
//   - a coordinator write timeout or write failure (CAS and CDC included):
//     some replicas may have applied the mutation;
//   - no response in time, the connection closed or timed out too often
//     while the request was in flight: it was sent, no answer came;
//   - unavailable, overloaded, bootstrapping: the coordinator refused before
//     forwarding (typed here because a typed error built without a frame
//     carries code 0, a server error);
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
		overloaded   *gocql.RequestErrOverloaded
		bootstrap    *gocql.RequestErrBootstrapping
		marshal      gocql.MarshalError
	)
	switch {
	case errors.As(err, &writeTimeout), errors.As(err, &writeFailure),
		errors.As(err, &casUnknown), errors.As(err, &cdcFailure),
		errors.Is(err, gocql.ErrTimeoutNoResponse), errors.Is(err, gocql.ErrConnectionClosed),
		errors.Is(err, gocql.ErrTooManyTimeouts):
		return cqlstore.MaybeApplied
	case errors.As(err, &unavailable), errors.As(err, &overloaded),
		errors.As(err, &bootstrap), errors.As(err, &marshal):
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
