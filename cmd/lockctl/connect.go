package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra"
)

// conn is an open connection: the session (nil when a test supplies only a
// store) and the Store on it.
type conn struct {
	session *gocql.Session
	store   lockstep.Store
}

// Close closes the session.
func (c *conn) Close() {
	if c.session != nil {
		c.session.Close()
	}
}

// dial connects to the cluster o names. A cluster that cannot be reached
// gives one line naming the hosts; the driver's own logging is discarded,
// since everything it could say is in the returned error.
func dial(_ context.Context, o *options) (*conn, error) {
	cluster := gocql.NewCluster(o.hosts...)
	cluster.Timeout = o.timeout
	cluster.ConnectTimeout = o.timeout
	cluster.Consistency = o.consistency // for the schema statements
	cluster.Logger = log.New(io.Discard, "", 0)
	// CreateSession takes no ctx; ConnectTimeout bounds it.
	session, err := cluster.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("cannot reach Cassandra at %s: %w", strings.Join(o.hosts, ","), err)
	}
	store, err := cassandra.New(session, o.keyspace, cassandra.WithConsistency(o.consistency, o.consistency))
	if err != nil {
		session.Close()
		return nil, err
	}
	return &conn{session: session, store: store}, nil
}
