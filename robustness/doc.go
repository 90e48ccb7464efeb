// Package robustness tests lockstep from outside, on a real 3-node Apache
// Cassandra cluster under faults: partitions, pauses, crashes, server clock
// skew, packet loss and slow nodes (the nemeses), with workers that are
// separate OS processes taking locks through the public API, and checkers
// that read the workers' histories afterwards (ROBUSTNESS.md).
//
// It is a module of its own, so that its dependencies stay out of the
// library's go.mod.
package robustness
