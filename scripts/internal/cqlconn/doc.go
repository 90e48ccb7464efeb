// Package cqlconn holds the connection flags the test tools under scripts/
// share (cqlping, cqlsecure): PasswordAuthenticator credentials and
// client-to-node TLS, for the secure node of scripts/cassandra up --secure.
// Without any of its flags a connection is plain and unauthenticated, as
// before.
package cqlconn
