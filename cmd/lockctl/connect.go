package main

import (
	"context"
	"fmt"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
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

const insecureWarning = "lockctl: WARNING: --tls-insecure-skip-verify: the nodes' certificates are NOT verified; " +
	"anyone on the network path can pose as the cluster and read the password and every lock. Use --tls-ca instead.\n"

// dial connects to the cluster o names. A cluster that cannot be reached,
// or refuses the login or the TLS handshake, gives one line saying what to
// check and exit code 3; the driver's own logging is discarded, since
// everything it could say is in the returned error.
func (a *app) dial(_ context.Context, o *options) (*conn, error) {
	cluster, err := o.ClusterConfig()
	if err != nil {
		return nil, usageError(err)
	}
	if o.TLSInsecureSkipVerify {
		fmt.Fprint(a.stderr, insecureWarning)
	}
	// CreateSession takes no ctx; ConnectTimeout bounds it.
	session, err := cluster.CreateSession()
	if err != nil {
		return nil, connectError(o, err)
	}
	store, err := o.NewStore(session)
	if err != nil {
		session.Close()
		return nil, err
	}
	return &conn{session: session, store: store}, nil
}
