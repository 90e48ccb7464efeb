package cassandra

import (
	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep/cassandra/cqlstore"
)

// storeErrors prefixes this package's errors and classifies gocql's: the
// errors whose meaning the protocol code alone does not give (package
// cqlstore decides the rest, the caller's ctx first; see cqlstore.Errors).
var storeErrors = cqlstore.Errors{Name: "cassandra", Hint: cqlstore.PermissionHint, Classify: cqlstore.Classify(
	// Sent, and maybe applied: a coordinator write timeout or write failure
	// (CAS and CDC included) means some replicas may have applied it; no
	// response in time, or the connection closed or timed out too often
	// while it was in flight, means no answer came.
	[]cqlstore.Match{
		cqlstore.As[*gocql.RequestErrWriteTimeout](), cqlstore.As[*gocql.RequestErrWriteFailure](),
		cqlstore.As[*gocql.RequestErrCASWriteUnknown](), cqlstore.As[*gocql.RequestErrCDCWriteFailure](),
		cqlstore.Is(gocql.ErrTimeoutNoResponse), cqlstore.Is(gocql.ErrConnectionClosed), cqlstore.Is(gocql.ErrTooManyTimeouts),
	},
	// Not applied: the coordinator was unavailable, or the driver refused
	// before sending (a value that does not marshal, no hosts, session
	// closed, wrong argument count, no free stream, too many statements, no
	// keyspace).
	[]cqlstore.Match{
		cqlstore.As[*gocql.RequestErrUnavailable](), cqlstore.As[gocql.MarshalError](),
		cqlstore.Is(gocql.ErrNoConnections), cqlstore.Is(gocql.ErrSessionClosed), cqlstore.Is(gocql.ErrQueryArgLength),
		cqlstore.Is(gocql.ErrNoStreams), cqlstore.Is(gocql.ErrTooManyStmts), cqlstore.Is(gocql.ErrUnavailable),
		cqlstore.Is(gocql.ErrNoKeyspace), cqlstore.Is(gocql.ErrKeyspaceDoesNotExist),
	},
)}
