// Package clusterlock keeps integration tests that share one real Cassandra
// cluster out of each other's way. go test runs the test binaries of several
// packages at once; tests that stop and kill nodes (package cassandra's
// cluster tests) take the lock exclusively, the other integration tests take
// it shared. It is for tests only and imports no driver.
package clusterlock
