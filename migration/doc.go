// Package migration is the Locker services use while a fleet moves, live,
// from the legacy lock (package shadowlock) to the queue lock (package
// queuelock) through the combined mode (package combined).
//
// A [Locker] asks a [FlagSource] for the mode of each acquisition, checks it
// against the fleet's [Phase], and takes the lock with that mode's algorithm;
// the lock keeps its mode. Each Locker keeps its process's entry in a census
// table, and a [Controller] moves the phase only when the census shows no
// live process using a mode the new phase forbids:
//
//	phase legacy    legacy, combined
//	phase combined  legacy, combined
//	phase new       combined, new
//	pending:F->T    the modes both F and T allow
//
// Legacy and new do not see each other's cells; combined takes both locks.
//
// # Use
//
// Build one Locker per process with New and a flag source ([Static], [Env],
// [File], [PhaseFlag], or an SDK's); call Ready at startup and Close on
// shutdown: Ready finds a missing table, grant or phase before the first
// Lock does. Move the phase with [Controller.Set] or lockctl phase set. The rollout
// runbook is docs/migrating.md.
//
// # Guarantees
//
// Mutual exclusion holds at every step, both ways, if every process locks
// through a Locker and one Controller runs at a time. Fairness is the queue's
// among combined and new processes; where legacy processes contend, only
// deadlock freedom. An acquisition in a mode the phase forbids fails with a
// *[ModeError] (lockstep.ErrIncompatibleMode), writing nothing; a wrong flag
// costs availability, not exclusion. A lock's Lost() closes when its lease
// lapses, and also when the census heartbeat does (no write sent in the last
// census window, (CensusTTL − 1s − MaxServerSkew)/2, succeeded);
// acquisitions then fail with [ErrStaleCensus]. With Options.Fencing, tokens
// grow with ownership across all modes.
//
// # Pitfalls
//
//   - One Controller at a time; process ids unique in the fleet.
//   - Keep the census window above the store's read timeout (5s on
//     Cassandra); the default CensusTTL does.
//   - Binaries locking without this package are invisible to the census:
//     replace them before moving to new.
//   - Give every Lock a deadline: a call keeps the mode it started in.
//   - Outside mode new every lock is exclusive, whatever access it asks.
//   - With [PhaseFlag], give the Controller a Drain longer than the flag's
//     cache, plus the longest hold, plus the heartbeat period, plus
//     FlagStaleFor.
//
// # Handovers
//
// A Locker is a lockstep.Sharer for locks taken in mode new: Share hands
// one over (a legacy or combined hold is refused with
// lockstep.ErrIncompatibleMode), and Adopt on another Locker continues it
// once admitted as a Lock in mode new would be: its flag must say new, its
// census entry publishes new before the phase is read, and the phase must
// allow new. The adopted lock counts in the census, its Lost() closes when
// the census heartbeat lapses, and under lockstep.WithReentrancy it joins
// the holder. A refusal writes nothing; the giver still holds.
//
// The argument is in docs/algorithms.md, sections 6 (which modes may run
// together, Theorem 7), 7 (phases, census and admission; Theorem 9; 7.4,
// Lemma 13, for handovers) and 8.7 (the handover).
package migration
