// Package migration is the entry point services use while a fleet moves
// live from the legacy shadow-table lock (package shadowlock) to the queue
// lock (package queuelock) through the combined mode (package combined),
// without an instant where two processes hold the same lock (the argument is
// § Why no two processes can hold one lock, below).
//
// It composes the three algorithms and depends on no driver: a [Locker]
// holds one queue locker and one legacy locker on one store and clock, and
// the combined locker composing the two (so a process has one contender per
// id in the queue, whatever mode its flag says), asks a
// [FlagSource] for the mode of every acquisition, and refuses modes the
// fleet's [Phase] forbids. A fleet census (one TTL'd cell per process in
// table fleet_census) and a phase cell (table fleet_phase) let a
// [Controller] move the phase safely.
//
// # Modes and phases
//
// Legacy and new processes touch disjoint rows, so they must never run side
// by side; combined takes both locks and is safe beside either. The phase
// says which modes processes may take locks in:
//
//	phase legacy    legacy, combined
//	phase combined  legacy, combined
//	phase new       combined, new
//	pending:F->T    the modes both F and T allow
//
// The Controller moves the phase one step at a time (legacy <-> combined <->
// new). A process configured in a mode its phase forbids (config drift, a
// stale replica restarting) refuses to take locks with a *[ModeError] naming
// both modes, and writes nothing to the lock tables.
//
// # Why no two processes can hold one lock
//
// Invariant: every mode in which some live process holds, or may be about to
// take, a lock lies in the current phase's allowed set, and every allowed set
// is pairwise compatible. The Controller keeps it across a move from F to T
// by the lemma-1 pattern of seed 000, with the census and the phase cell in
// the roles of the shadow and main rows:
//
//   - A process about to lock in mode m first publishes m in its census
//     entry (configured mode, or an acquisition in flight) and waits for that
//     write to complete; only then reads the phase, and proceeds only if the
//     phase allows m. m stays in the entry while the lock is held.
//   - The Controller writes the intent pending:F->T, then reads the
//     census, and commits T only if no live entry uses a mode T forbids;
//     otherwise it writes F back.
//
// With QUORUM, a read that starts after a write completed sees it. If the
// process's phase read missed the intent, it started before the intent's
// write completed, so the process's census write had completed before the
// Controller's census read started, and the Controller sees m and refuses.
// Otherwise the process sees pending:F->T (or T) and, unless m is allowed by
// both ends, refuses. A reverted move is harmless: while pending, only modes
// F also allows were admitted.
//
// An entry is only evidence while it is alive. A process rewrites it every
// half lease window of the CensusTTL ((CensusTTL − 1s − MaxServerSkew)/4,
// internal/lease) and takes locks only while its last successful write was
// sent less than a window ago, on elapsed time; when that lapses, every lock
// it took before is signalled lost (Lost closes, Unlock reports
// lockstep.ErrLost) — the lease argument of internal/lease (its doc.go and
// Config.Window), applied to the census — well before the entry can expire
// at CensusTTL. The phase read on the fast path is cached only while
// the mode has stayed published in the same heartbeat epoch, which keeps the
// argument intact without a phase read per acquisition.
//
// Assumptions the argument needs and this package cannot check: one
// Controller at a time (the phase cell has no compare-and-set); process ids
// unique across the fleet (two processes with one id share one entry); and
// every process takes its locks through this package. Processes that do not
// — old binaries using the legacy algorithm directly — are invisible to the
// census: they are safe in phases legacy and combined, but must be drained by
// deployment before the phase moves to new.
//
// # Accesses, groups and hierarchical ids
//
// Locker implements lockstep.GroupLocker, and Options.Separator makes ids
// hierarchical. Each member of a group is one acquisition of the kind above
// — flag read, phase checked, taken by the mode's algorithm — so the
// invariant holds member by member. In mode new a member is a queue lock in
// its access; in modes combined and legacy it is exclusive (combined/doc.go,
// "Accesses", says why the combined queue half is exclusive too: fairness).
// Outside mode new, then, every member excludes every other acquisition of
// its exact id, intention locks included: hierarchy and groups stay safe,
// sharing and sibling concurrency wait for mode new. A group whose members were
// taken in different modes (the flag moved while it was taken) is still
// safe: each member is admitted by the phase on its own.
//
// # Draining before the intent
//
// With ControllerOptions.Drain the Controller waits for the fleet before it
// writes the intent, not under it: it reads the census, writing nothing,
// every Poll until no live entry uses a mode T forbids (or the Drain has
// passed: it then refuses, naming the blockers, with the phase cell as it
// was). Only then does it write the intent and read the census again — the
// read the argument above relies on. The drain's reads carry no part of the
// argument: they only choose the moment of the intent, and any earlier read
// is as good as none. So a process that begins using a mode T forbids after
// the drain's last read (its flag flipped back, a stale replica restarted)
// is covered exactly as before: either its phase read saw the intent and it
// refused, or its census write completed before the read after the intent
// began, and the Controller sees it and reverts. Nothing changed on the
// process side (census write, then phase read, the cache tied to the
// heartbeat epoch), so the lemma holds as it stands. The read after the
// intent is what the planted defect DrainSkipsRecheck (internal/bugs) leaves
// out; the drain property of package propertytests — no lock is taken in a
// mode the phase forbids once the Controller was told its commit succeeded,
// while flags drift into that mode at any moment — catches it
// (TestNegative_DrainSkipsRecheckIsCaughtByThePhaseProperty).
//
// The order matters for availability, not safety. While the Controller
// drains, the phase is still F, which allows the outgoing mode: a process
// still configured in it keeps taking locks until its flag flips, where under
// an intent written first it was refused every lock for the whole drain. The
// intent now stands for one census read. If that read finds a blocker, the
// Controller reverts at once rather than hold the intent (which would refuse
// the blocker's locks) and drains again; at most three intents per Set, all
// within the Drain, so a fleet whose flag flaps is refused rather than
// probed indefinitely.
//
// A fleet whose flag is a [PhaseFlag] used to learn of a move from its
// intent, which it answers with combined. With the drain first there is no
// intent to learn from until the fleet has left the outgoing mode, so while
// blockers remain the Controller announces the move in a cell of its own
// beside the phase (column "announce" of the phase row, the intent's text, with a TTL of the
// Drain plus 10s) and withdraws it when Set returns. PhaseFlag answers
// combined for an announcement from the committed phase; the guard never
// reads it. The announcement cannot break exclusion: it changes only what a
// flag answers, flags are never trusted (every answer goes through the
// census and the guard), and combined is allowed in every phase. A stale
// announcement (a Controller that died) costs only its TTL of combined
// locks.
//
// # Startup check
//
// Call [Locker.Ready] once after New, before serving: it reads a row of
// every table the Locker uses, asks the flag for a mode and checks it
// against the phase, writing nothing, so a missing keyspace or table, an
// unreadable flag or a flag the phase refuses fails the deployment with the
// fix in the message rather than the first Lock. On Cassandra,
// schema.Verify(ctx, session, keyspace, schema.WithUses(schema.MigrationUses(fencing)))
// adds the tables' layout.
//
// # Rollout runbook
//
// At every step watch three things: the census (ReadCensus, or lockctl), the
// phase (Controller.Get), and the Observer's events — acquisition errors
// wrapping lockstep.ErrIncompatibleMode or ErrStaleCensus, lease events with
// Lost set, and acquisition waits. Lost-lock counts should stay at their
// pre-migration level; a rise means renewals or census heartbeats are
// failing, not that exclusion broke.
//
//  1. Create the tables fleet_census and fleet_phase (package schema). With
//     no phase cell the phase reads as legacy.
//  2. Deploy the release that takes locks through migration.Locker with the
//     flag at legacy. Census: one entry per replica, configured legacy, the
//     new version. Compare the entry count with the replica count of every
//     service that takes these locks: a missing replica is an old binary, and
//     must be replaced before step 5.
//  3. Controller.Set(ctx, lockstep.ModeCombined). Nothing changes for
//     processes: the phase allows legacy and combined alike.
//  4. Flip the flag to combined, gradually if you like. Census: configured
//     combined everywhere; "holds legacy×n" entries drain as locks taken
//     before the flip are released (a lock keeps its mode). Waits may rise
//     slightly: combined takes two locks.
//  5. When no entry is configured legacy or holds a legacy lock, and no old
//     binary is left, Controller.Set(ctx, lockstep.ModeNew). It refuses, naming
//     the processes, while any live entry uses legacy; with
//     ControllerOptions.Drain it waits that long for them first, before
//     writing anything, so the processes it waits for keep their locks
//     working meanwhile.
//  6. Flip the flag to new. Census: configured new; the fairness gain shows
//     in the waits (seed 000 tables 1–2). Keep combined in the code for one
//     more release as the way back.
//
// Rollback runs the same steps backwards: flip the flag from new to
// combined (allowed in phase new), wait until no entry is configured new or
// holds a new lock, Controller.Set(ctx, lockstep.ModeCombined) (refused, naming
// them, otherwise), then flip the flag to legacy and Set(ctx, lockstep.ModeLegacy).
// A fleet whose flag is a [PhaseFlag] follows the phase by itself: give the
// Controller a Drain longer than the flag's cache plus the longest lock hold
// plus the census heartbeat period ((CensusTTL − 1s − MaxServerSkew)/4)
// (plus FlagStaleFor, if the flag may fail during the move),
// and each Set announces the move, waits for the fleet to switch to
// combined, then writes the intent and commits, refusing none of its locks
// on the way.
//
// # Flag sources
//
// [Static], [Env], [File] and [PhaseFlag] are built in. For OpenFeature
// (github.com/open-feature/go-sdk), module
// github.com/lockstep-go/lockstep/adapters/openfeature has a FlagSource
// reading a string flag (legacy, combined or new): a provider error or a
// value that is not a mode is answered with the last good mode for
// Options.FlagStaleFor, then fails the acquisition, never falling back to a
// default. It is a module of its own, as are the Prometheus and
// OpenTelemetry Observers beside it (adapters/prometheus, adapters/otel), so
// that depending on lockstep never pulls in an SDK a service does not use.
// Any other feature-flag SDK fits behind [FlagSource] in a few lines, the
// same way.
//
// A Locker wraps its flag source with [KeepLastGood]: when the source fails
// (a flag file missing for a moment while a ConfigMap is remounted, a flag
// service restarting), the last good answer is used for up to
// Options.FlagStaleFor (default 30s), with one Warn through Options.Logger
// per outage; past that, acquisitions fail with the source's error and what
// to do. This is safe because no flag answer is ever trusted: every mode,
// fresh or stale, is published in the census and checked against the phase
// by the guard before a lock is taken (see "Why no two processes can hold
// one lock"), so a stale answer is refused exactly where a live flag that
// had not yet been flipped would be. The mode-switch protocol is untouched,
// which is why no new model-check property comes with it. What it costs is
// time: a process may keep the outgoing mode up to FlagStaleFor longer, so
// a Controller's Drain should allow for it.
//
// # Fencing tokens
//
// Options.Fencing gives every lock the Locker takes a fencing token
// (lockstep.Fenced), in every mode: legacy and new locks draw one after
// their claim, combined locks one after both halves are held, each kept only
// if the lease(s) were still open when it arrived (package fence and
// internal/fencing have the argument). Tokens are then ordered as ownership
// across modes, so a fenced resource keeps working through every phase of a
// migration, provided every process draws from the same global time table.
// Legacy binaries not built on this library draw none. Without it, Token
// returns 0.
//
// # Precedents
//
// Kubernetes moved leader election from Endpoints and ConfigMaps to Lease
// objects with client-go's MultiLock: for one release candidates take and
// renew both locks, the old one authoritative; a later release drops it. Mode
// combined is that release. CockroachDB gates features on a cluster version
// that is finalized only once every node runs the new binary, and a gate
// flips on different nodes at different times, so every code path must honour
// what any version a peer may still run writes; the census and the phase
// intent are this package's version gate.
package migration
