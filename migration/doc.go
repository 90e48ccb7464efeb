// Package migration is the Locker services use while a fleet moves, live,
// from the legacy lock (package shadowlock) to the queue lock (package
// queuelock) through the combined mode (package combined).
//
// A [Locker] takes each lock in the mode its [FlagSource] gives, if the
// fleet's [Phase] allows it; the lock keeps its mode. Each Locker keeps its
// process's entry in a census table, and a [Controller] moves the phase
// only when no live process uses a mode the new phase forbids:
//
//	phase legacy    legacy, combined
//	phase combined  legacy, combined
//	phase new       combined, new
//	pending:F->T    the modes both F and T allow
//
// Legacy and new do not see each other's cells; combined takes both locks.
//
// Build one Locker per process with New and a flag source ([Static], [Env],
// [File], [PhaseFlag], or an SDK's); call Ready at startup, Close on
// shutdown. Move the phase with [Controller.Set] or lockctl phase set
// (runbook: docs/migrating.md).
//
// # Guarantees
//
// Mutual exclusion holds at every step if every process locks through a
// Locker and one Controller runs at a time. An acquisition in a mode the
// phase forbids fails with a *[ModeError], writing nothing. A lock's Lost()
// closes when its lease or the census heartbeat lapses. Fencing tokens grow
// across all modes. Locks taken in mode new can be handed over
// (lockstep.Sharer); Adopt is admitted as a Lock in mode new would be.
//
// # Pitfalls
//
//   - One Controller at a time; process ids unique in the fleet.
//   - Binaries locking without this package escape the census.
//   - Give every Lock a deadline: a call keeps the mode it started in.
//   - Outside mode new every lock is exclusive, whatever access it asks.
//   - With [PhaseFlag], the Controller's Drain must exceed the flag's cache
//     plus the longest hold, the heartbeat period and FlagStaleFor.
//
// docs/algorithms.md, sections 6 and 7, has the argument.
package migration
