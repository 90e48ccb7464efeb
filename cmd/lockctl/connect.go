package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"os"

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

// clusterConfig maps the validated options to the driver's configuration:
// contact points and port, timeouts, consistency, DC-aware routing,
// PasswordAuthenticator and TLS. It contacts nothing; TLS files are read
// here, so a missing or malformed one is refused before any connection.
func clusterConfig(o *options) (*gocql.ClusterConfig, error) {
	cluster := gocql.NewCluster(o.hosts...)
	cluster.Port = o.port // for hosts given without one
	cluster.Timeout = o.timeout
	cluster.ConnectTimeout = o.timeout
	cluster.Consistency = o.consistency // for the schema statements
	cluster.Logger = log.New(io.Discard, "", 0)
	if o.localDC != "" {
		// Replicas of the row first, among them (and as fallback) the
		// nodes of the local DC, round robin; remote DCs only when no
		// local node is up.
		cluster.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy(o.localDC))
	}
	if o.username != "" {
		cluster.Authenticator = gocql.PasswordAuthenticator{Username: o.username, Password: o.password}
	}
	if o.tls {
		cfg, err := tlsConfig(o)
		if err != nil {
			return nil, err
		}
		// With a Config, gocql verifies unless Config.InsecureSkipVerify is
		// set and EnableHostVerification is not.
		cluster.SslOpts = &gocql.SslOptions{Config: cfg, EnableHostVerification: !o.tlsInsecure}
	}
	return cluster, nil
}

// tlsConfig builds the client's TLS configuration: the CA bundle (else the
// system roots), the client key pair, the server name. Verification stays
// on unless --tls-insecure-skip-verify.
func tlsConfig(o *options) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: o.tlsServer, InsecureSkipVerify: o.tlsInsecure}
	if o.tlsCA != "" {
		pem, err := os.ReadFile(o.tlsCA)
		if err != nil {
			return nil, fmt.Errorf("--tls-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--tls-ca %s: no PEM certificate in it (want the CA bundle that signed the nodes' certificates)", o.tlsCA)
		}
		cfg.RootCAs = pool
	}
	if o.tlsCert != "" {
		pair, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
		if err != nil {
			return nil, fmt.Errorf("--tls-cert %s / --tls-key %s: %w", o.tlsCert, o.tlsKey, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

const insecureWarning = "lockctl: WARNING: --tls-insecure-skip-verify: the nodes' certificates are NOT verified; " +
	"anyone on the network path can pose as the cluster and read the password and every lock. Use --tls-ca instead.\n"

// dial connects to the cluster o names. A cluster that cannot be reached,
// or refuses the login or the TLS handshake, gives one line saying what to
// check and exit code 3; the driver's own logging is discarded, since
// everything it could say is in the returned error.
func (a *app) dial(_ context.Context, o *options) (*conn, error) {
	cluster, err := clusterConfig(o)
	if err != nil {
		return nil, usageError(err)
	}
	if o.tlsInsecure {
		fmt.Fprint(a.stderr, insecureWarning)
	}
	// CreateSession takes no ctx; ConnectTimeout bounds it.
	session, err := cluster.CreateSession()
	if err != nil {
		return nil, connectError(o, err)
	}
	store, err := cassandra.New(session, o.keyspace, cassandra.WithConsistency(o.consistency, o.consistency))
	if err != nil {
		session.Close()
		return nil, err
	}
	return &conn{session: session, store: store}, nil
}
