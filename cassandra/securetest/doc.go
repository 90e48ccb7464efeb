// Package securetest is test support for the authenticated TLS node of
// scripts/cassandra up --secure: it reads the LOCKSTEP_SECURE_* settings the
// script prints, builds gocql cluster configurations for a role (TLS with the
// test CA and client certificate, PasswordAuthenticator), and holds the
// least-privilege roles of docs/security.md as CQL, so the integration tests
// grant exactly what the guide tells operators to grant.
//
// It sits beside package cassandra (the only packages that may import the
// driver) and is imported only by tests: the library's integration tests in
// cassandra/ and lockctl's in cmd/lockctl.
package securetest
