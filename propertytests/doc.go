// Package propertytests checks the lock algorithms that ship — shadowlock
// (legacy) and queuelock (new), unmodified — with pgregory.net/rapid state
// machines running them as simulated processes on a simulated quorum cluster
// (package model/sim).
//
// Each check builds a fleet (fleet_test.go: adding a mode or a mixed fleet is
// one line there) on a harness (harness_test.go; variant_test.go says what
// a negative control plants or leaves out), lets rapid drive a random phase
// of scheduler decisions and faults (machine_test.go) among the processes'
// users (user_test.go), checks the safety properties after every action
// (safety_test.go, and a file per property: ownership_test.go,
// ownercell_test.go, queuecell_test.go, lease_test.go, fencing_test.go,
// reserved_test.go),
// and then runs a fault-free, fair round-robin quiet phase that checks
// liveness (liveness_test.go). One fleet runs honest users beside
// an arrival storm, processes whose Lock calls are cancelled one after
// another, against the queue lock's fast path (storm_test.go). Two run
// in two data centres (dc_test.go), global and DC-local, with a DC
// partition and heal among the faults, judged per row. The
// lock-manager fleets (groupfleet_test.go) take lock groups in the five
// accesses over hierarchical ids, and are judged by what each holder asked
// for, ancestors implied (accesscheck_test.go). The deadlock fleet
// (deadlockfleet_test.go) runs units of work that take two ids in random
// orders with deadlock detection on: besides exclusion and deadlock
// freedom, every lockstep.ErrDeadlock must come with an instant of its
// wait at which the recorded history shows a cycle through its process.
// The transfer fleets hand held locks between processes (lockstep.Sharer):
// queue Lockers (transferfleet_test.go), and migration Lockers beside a
// Controller moving the phase new ↔ combined (migtransfer_test.go), judged
// by the phase property too: no lock taken, adopted or worked on in mode
// new once a commit of combined was acknowledged. The rollback fleet
// (rollbackevidence_test.go) runs migration Lockers at EvidenceUse beside
// a Controller moving the phase new → combined → legacy → combined → new,
// from a fixed schedule (rollbackprefix_test.go) in which a process that
// drew values ahead in mode new idles through a rollback while another
// takes a legacy lock: no lock of mode new may take a value drawn before
// the phase read that admitted it. The cohort fleets run
// several goroutines per process with local handoff (cohort_test.go,
// cohortretain_test.go), one of them sharing locally handed locks with
// another process (cohorttransfer_test.go), where exclusion counts a
// shared lock's giver and adopters as one holding and a lock granted in
// memory beside them as another.
// Negative controls
// (negative_test.go) switch on deliberate defects through each package's
// TestingKnobs, set when a process's Lockers are built (knobs_test.go), and
// assert the checker catches each and shrinks it to a short counterexample.
//
// The random phase's faults: a process's clock skewed or stepped, a replica's
// clock skewed, a process paused beyond its TTL or crashed, two clocks made
// to collide, requests slowed, timed out or their hints lost — and a
// process cut off the legacy lock's tables for a while (cut_test.go), as
// when they live in a keyspace of their own whose replicas it cannot reach,
// or its role's grant on them is revoked: every request it sends there
// fails, while its queue-lock requests are served. A combined lock must
// then notice its legacy lease lapse although its queue lease is healthy.
//
// A group holder of the lock-manager fleets is judged on every member it
// holds (members_test.go): each member's cells must surely live while the
// holder works (the lease property), each member's owner cell must be live
// while its Lost() is open, a queue member renewed since its claim must
// have given its queue cell up (queuecell_test.go; a shared lock's holders
// keep it), and a member with a fencing token must hold it
// in ownership order against the holders of that id in an incompatible
// access.
//
// # Depth
//
// A plain go test is a quick run, so that the README's test command of
// every module stays within a few minutes: each fleet and the drain check
// run 20 rapid checks, the rollout 20. LOCKSTEP_DEEP=1 runs them at CI's
// depth, 1,000 rapid checks per fleet and for the drain (the rollout 50):
//
//	LOCKSTEP_DEEP=1 go test ./propertytests/
//
// -rapid.checks=N (or RAPID_CHECKS) overrides both, and -rapid.steps=N
// (RAPID_STEPS) the random phase's length, 100 actions on average. The
// negative controls (go test -tags lockstep_bugs -run Negative) are not
// affected by LOCKSTEP_DEEP: each runs until caught, up to its own budget
// of 3,000 checks per search unless -rapid.checks says otherwise. Which
// rapid flags the user chose is read once, before any test runs: a test
// that sets one for itself restores it, and no later test mistakes it for
// the user's. The seeded sweep (sweep_test.go) reads LOCKSTEP_SCHEDULES.
//
// # Replay
//
// The simulator gives one run per seed (model/sim), which
// TestSchedule_SameSeedSameRun checks for every fleet against the digests
// in testdata/schedules.txt. Schedules that once exposed a real bug are kept
// as scripts in testdata/regressions, each tied to the planted defect that
// brings its bug back and replayed with and without it (regressions_test.go).
// rapid's own failure files are not kept: they record draws, not the defect
// they found, so they cannot tell a stale seed from a guarded one.
package propertytests
