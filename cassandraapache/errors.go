package cassandraapache

import (
	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/lockstep-go/lockstep/cassandra/cqlstore"
)

// storeErrors prefixes this package's errors and classifies the v2 driver's
// (package cqlstore decides what these lists leave open, the caller's ctx
// first, then the protocol code).
var storeErrors = cqlstore.Errors{Name: "cassandraapache", Hint: cqlstore.PermissionHint, Classify: cqlstore.Classify(
	// Sent, and maybe applied: replicas may have applied a write that timed
	// out or failed at the coordinator (CAS and CDC included); no answer
	// came within the session's timeout, or the connection closed while the
	// request was in flight.
	[]cqlstore.Match{
		cqlstore.As[*gocql.RequestErrWriteTimeout](), cqlstore.As[*gocql.RequestErrWriteFailure](),
		cqlstore.As[*gocql.RequestErrCASWriteUnknown](), cqlstore.As[*gocql.RequestErrCDCWriteFailure](),
		cqlstore.Is(gocql.ErrTimeoutNoResponse), cqlstore.Is(gocql.ErrConnectionClosed),
	},
	// Not applied. The coordinator refused before forwarding: unavailable,
	// overloaded, bootstrapping (typed here because this driver's typed
	// errors built without a frame carry code 0, a server error). Or the
	// driver refused before sending: a value that does not marshal, no
	// hosts, session closed, no free stream, too many
	// statements, no keyspace. (The driver's ErrTooManyTimeouts and
	// ErrQueryArgLength are deprecated: it never returns them.)
	[]cqlstore.Match{
		cqlstore.As[*gocql.RequestErrUnavailable](), cqlstore.As[*gocql.RequestErrOverloaded](),
		cqlstore.As[*gocql.RequestErrBootstrapping](), cqlstore.As[gocql.MarshalError](),
		cqlstore.Is(gocql.ErrNoConnections), cqlstore.Is(gocql.ErrSessionClosed),
		cqlstore.Is(gocql.ErrNoStreams), cqlstore.Is(gocql.ErrTooManyStmts), cqlstore.Is(gocql.ErrUnavailable),
		cqlstore.Is(gocql.ErrNoKeyspace), cqlstore.Is(gocql.ErrKeyspaceDoesNotExist),
	},
)}
