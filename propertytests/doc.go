// Package propertytests checks the lock algorithms that ship — shadowlock
// (legacy) and queuelock (new), unmodified — with pgregory.net/rapid state
// machines running them as simulated processes on a simulated quorum cluster
// (package model/sim).
//
// Each check builds a fleet (fleet_test.go: adding a mode or a mixed fleet is
// one line there), lets rapid drive a random phase of scheduler decisions and
// faults (machine_test.go), checks the safety properties after every action
// (checker_test.go), and then runs a fault-free, fair round-robin quiet phase
// that checks liveness (liveness_test.go). One fleet runs honest users beside
// an arrival storm, processes whose Lock calls are cancelled one after
// another, against the queue lock's fast path (storm_test.go). The
// lock-manager fleets (groupfleet_test.go) take lock groups in the five
// accesses over hierarchical ids, and are judged by what each holder asked
// for, ancestors implied (accesscheck_test.go). Negative controls
// (negative_test.go) switch on deliberate defects through internal/bugs and
// assert the checker catches each and shrinks it to a short counterexample.
//
// Depth: go test runs a moderate number of checks; -short a few; CI raises
// them with -rapid.checks=N (or RAPID_CHECKS) and -rapid.steps=N.
//
// Replay: the simulator gives one run per seed (model/sim), which
// TestSchedule_SameSeedSameRun checks for every fleet against the digests
// in testdata/schedules.txt. Schedules that once exposed a real bug are kept
// as scripts in testdata/regressions, each tied to the planted defect that
// brings its bug back and replayed with and without it (regressions_test.go).
// rapid's own failure files are not kept: they record draws, not the defect
// they found, so they cannot tell a stale seed from a guarded one.
package propertytests
