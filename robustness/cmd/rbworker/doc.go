// Command rbworker is one worker process of the robustness suite
// (package robustness). It takes locks through the library's public entry
// point, migration.Locker, in a loop until --duration ends: pick one of
// --locks ids at random, Lock with a timeout, and in the critical section
// read the harness's fenced register (with the lock's fencing token) and its
// unfenced counter (package register), work for a random time up to --hold,
// and write both incremented, looking at Lost() before the reads and after
// the writes (worker.critical says why not between the work and the
// writes); then Unlock. Every operation goes to the
// --history file as one JSON line (package history): acquire, renew (from
// the library's Observer), lost, write and release, with invoke and return
// times on the host's monotonic clock since --epoch-unix-ns.
//
// With --manager-share P, a share P of the acquisitions are the lock
// manager's (manager.go), through the same migration.Locker built with
// Options.Separator "/": a Shared lock of lock-0 or lock-1 (a group of one
// request), a hierarchical Lock of a child "lock-N/a" or "lock-N/b" (which
// takes IX on "lock-N"), a Shared child, a group of both children in random
// accesses, a reader of a parent writing one child (SIX on the parent), or a
// reader of one parent with a writer below the other. Their acquire records
// carry the requests (history.Record.Members); their critical section only
// reads the parent's unfenced counter and works: the registers are written
// under plain exclusive holds only, whose fencing token orders them (a group
// has no token). The lease tracker follows every member's lease, ancestors
// included, and takes the earliest.
//
// With --dc the worker lives in one data centre: its session sends every
// request to that data centre's nodes and never fails over (the routing a
// DC-local store needs), and every record names the data centre and its
// lock's scope. With --local-share P, a share P of the acquisitions take a
// DC-local lock local-N of that data centre (a queue lock on a store built
// WithLocalDC, LOCAL_QUORUM, fenced by a global time service on that store),
// recorded under history.LocalKey, local-N@dc, with registers of their own.
//
// With --coordinator NODE every request goes to that one node, the
// coordinator of all the worker's reads and writes (a negative control
// pins its workers so, since a read's now, which decides the TTL'd cells it
// sees, is its coordinator's).
//
// With --lockman-history the worker is a lock-manager worker instead
// (lockman.go), whose events (history.Event) go to that file and whose
// --history stays empty. The segment's lock-manager workers meet in slots
// of 2.5 s on the shared epoch (slots.go; --lockman-index, --lockman-peers,
// --lockman-plan, default PRPT), each slot's roles derived alike by every
// worker from its number. In a P slot pairs of workers (the circle method)
// and in an R slot a ring of three run deadlock-prone units of work
// (deadlock.go) that close a cycle on purpose: each takes its first dl- id
// at the slot's start (Shared one time in four) and its second, the next
// member's first, exclusively 700 ms in; one in five then takes an id
// again (reentrant). They are taken by one unit of work (the Locker's
// Unit), through a migration.Locker with deadlock detection (After 500ms,
// Every 250ms; Lock calls bounded by 8 s), each acquisition recorded with
// what the unit held and its outcome, an ErrDeadlock with its cycle. In a T
// slot one of them holds tx-0 or tx-1 through a queuelock.Locker of their own (a lockstep.Sharer, which
// migration.Locker is not) and, three times in four, hand the lock to
// another lock-manager worker through files in --handover-dir (transfer.go:
// Share, offer, the successor's claim and Adopt, its ack, the giver's
// Unlock); the successor writes the fenced register and counter under the
// giver's token. While it waits for its next slot the worker takes any
// offer it finds. --lockman-plant names the worker's own defects for the
// controls (fake-deadlock, early-leave, no-detection: its dl- Locker built
// without detection).
//
// With --goroutines N the loop runs on N goroutines (goroutines.go), which
// contend for the same ids through the one migration.Locker, each a holder
// of its own: its records and its register requests name it
// "<process>/g<i>" (history.Holder), so the checkers judge each goroutine
// as they judge a process, and two goroutines holding one id at once is a
// violation. They take plain exclusive Locks only. With --local-handoff K
// the Locker is built with Options.LocalHandoff K (docs/algorithms.md
// §4.15): a goroutine's Unlock may hand the store hold to another
// goroutine waiting for the id, in memory, up to K times in a row, and
// each grant draws a fresh fencing token. The lease tracker follows leases
// per id rather than per hold, so that a goroutine handed the store hold
// (its lock has the store hold's owner) keeps the store hold's deadline
// bound rather than one counted from its own Lock call.
//
// The mode of each acquisition comes from --flag-file (migration.File), so
// the runner can flip it while the worker runs.
//
// With --lockd URL the worker takes every lock through that lockd instead
// (lockd.go): a lockd/client Session, a lockstep.GroupLocker, so plain
// Locks and the lock manager's acquisitions alike; a session that ended
// (its locks lost) is replaced by a new one at the next Lock. Its records
// carry mode "lockd" (lockd takes the fleet's phase and does not say which
// mode). A lockd hold has no lease events; it ends, when lost, at the
// instant the client knew — the moment its Lost channel closed, by
// lockd/client's rules (lockd said so, the watch stream broke, or no
// keep-alive answered for the session TTL) — which a goroutine per hold
// notes and the lost record starts at. --min-hold sets the shortest work
// in a critical section (the lockd control holds 7 s). With several URLs
// (--lockd A,B) the session fails over from A to B and back
// (lockd/client's Options.Endpoints): a failed lockd's locks move with it,
// and every move goes to --moves-history as a history.Move. --plant
// lockd-ignores-lost makes the worker itself ignore Lost and record its
// hold as lasting until Unlock says the lock was lost (the lockd control).
//
// # The lease deadline
//
// The public API does not expose when the last successful renewal was sent,
// so the worker derives a lower bound from the Observer's lease events: the
// library's renewer is sequential and reports each attempt when it returns,
// so renewal k was sent no earlier than the report of attempt k−1 (or the
// Lock call, for the first). The deadline recorded is that bound plus the
// lease window the library under test computes for the configured TTL and
// MaxServerSkew (internal/lease: (TTL − 1s − MaxServerSkew)/2, or what a
// planted defect makes of it). A lower bound keeps the checkers from false
// alarms; it weakens them by at most one renewal interval (TTL/3 or less).
// A combined lock has two leases (queue and legacy halves); its deadline is
// the earlier of the two.
//
// # Negative controls
//
// --plant NAME switches on a planted defect in every Locker the worker
// builds (the library's TestingKnobs); only the robustness suite's
// controls pass it. --fencing=false takes locks without fencing
// tokens (all tokens 0, which the fenced register then cannot tell apart).
// --bypass-migration takes locks with the algorithm of the flag's mode
// directly, as an old binary that never went through migration.Locker would:
// invisible to the census and deaf to the phase, which is how a legacy+new
// fleet happens in production. --plant global-at-local-quorum (with --dc)
// is the worker's own defect, not a library knob: its global locks go
// through the DC-local LOCAL_QUORUM store with the scope hidden, so they
// live in the global rows at levels a global store refuses. --plant
// reuse-token (with --local-handoff) plants local handoff's ReuseToken
// (testingknobs.Cohort): a goroutine handed the store hold keeps the
// previous holder's token. Client pauses are the runner's (SIGSTOP).
package main
