// Package clusterlock keeps integration tests that share one real Cassandra
// cluster out of each other's way. go test runs the test binaries of several
// packages at once; tests that stop and kill nodes (package cassandra's
// cluster tests) take the lock exclusively, the other integration tests take
// it shared.
//
// The lock is a flock(2) on os.TempDir()/lockstep-it-<the sorted hosts of
// CASSANDRA_HOSTS, joined by '_'>.lock, so every test binary that uses the
// cluster must take the same file: the integration tests of the nested
// modules (cmd/lockctl, lockd) take it too, which is why the package is
// public. It is for tests only and imports no driver.
package clusterlock
