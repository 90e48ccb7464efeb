// Command lockd serves the lockstep lock manager over the network
// (lockstep.v1, package lockd): gRPC, gRPC-Web and HTTP/JSON on one port,
// with the standard gRPC health service.
//
//	go run -C lockd ./cmd/lockd                 # embedded model, open mode, 127.0.0.1:<free port>
//	go run -C lockd ./cmd/lockd --listen 127.0.0.1:7420
//
// It prints the address it serves on, one line on stdout, and logs JSON on
// stderr. With no flags it runs on the embedded model store (an in-memory
// Cassandra), with the fleet phase moved to new, in open mode: every caller
// may take every id, so lockd refuses a non-loopback --listen without
// --principals.
//
// Security: --principals names the JSON file of principals and their id
// prefixes (lockd.Principals); --server-cert and --server-key serve TLS;
// --client-ca verifies client certificates and --require-client-cert
// refuses handshakes without one. Each flag has a LOCKSTEP_LOCKD_*
// variable, read when the flag is not given.
//
// Each lockd is an ordinary fleet process: a migration.Locker following the
// phase, in the census, with hierarchical ids (--separator, default "/") and
// fencing tokens.
//
// On SIGINT or SIGTERM it shuts down gracefully: health turns NOT_SERVING,
// every session is closed (its watchers are told CLOSED, "the server is
// shutting down") and its locks released, then the HTTP server drains and
// the Locker leaves the census.
//
// Not in this build: connecting to a Cassandra cluster. lockctl's
// connection, TLS and auth options (and their LOCKSTEP_* variables) are in
// its package main; lockd will take them once they move to a shared
// package. Until then lockd refuses to start when those variables are set,
// rather than serve a private store its clients would mistake for the
// fleet's.
package main
