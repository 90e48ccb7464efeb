// Package check reads a robustness run — the workers' histories (package
// history) and the register's log (package register) — and reports every
// violation it can prove. Run is the entry point; cmd/rbcheck runs it on a
// history directory.
//
// # Checkers
//
// mutex: a porcupine model of a leased mutex (github.com/anishathalye/porcupine),
// one check per lock id. Each hold contributes an acquire (the Lock call's
// invoke and return) and an end: a release (the Unlock call; an unknown
// outcome returns at history.Never, as etcd's robustness tests model a
// request that may still land), or an expire when the worker saw its lease
// lost. An expire begins at the earliest moment the library's contract lets
// another process acquire — the worker's lower bound on the last successful
// renewal's send plus the lease window — and ends when the worker saw Lost()
// (or Unlock reported the loss). A hold with no end (a worker killed while
// holding) expires from its last known deadline, never returning. The model
// state is the holder; acquire needs a free lock, release and expire need
// the caller to hold it. A history with no linearization means two
// processes held one lock at once, as far as the library's contract goes.
//
// fenced: on the register's log, in the server's order: no accepted write
// to the fenced register lost an update (the value the writer read is the
// value it overwrote); the tokens of accepted writes strictly increase per
// lock id; every rejected write comes from a holder whose lease had lapsed
// (a rejection before the writer's deadline means a successor was admitted
// while it still held the lock).
//
// counter: lost updates on the unfenced counter are counted, and are
// violations only with Options.StrictCounter (runs without client pauses).
//
// liveness: with Options.HealNS set, every worker that ran at least
// LivenessBound past the final heal acquired some lock within that bound —
// in a fleet that took no lock in mode legacy after the heal. The legacy lock
// is unfair by design, so a fleet with legacy holds need only be
// deadlock-free: some worker acquired within the bound.
//
// bypass: with Options.HealNS set, on every lock taken only in modes new and
// combined after the heal, no Lock call that began after the heal saw more
// than 2(n−1) acquisitions by others while it waited (n processes): the
// queue lock's bound, as the model checks state it (propertytests).
//
// harness: every write a worker recorded lies, in the register's log, inside
// the interval the worker recorded for it (within 100ms): otherwise the
// worker and the register do not share the epoch, and no time comparison
// above could be trusted.
//
// # Bounding porcupine
//
// Linearizability checking is NP-complete in general; here it stays cheap
// because the history is partitioned by lock id (each id is an independent
// mutex) and each partition is checked with its own timeout
// (Options.Timeout, default one minute) through CheckOperationsVerbose. The
// model's state is one integer, hashed, so porcupine's cache prunes
// revisited configurations; what grows the search is concurrency: the
// number of operations whose intervals overlap, at most about twice the
// workers on a lock, plus unknown releases that never return. A partition
// that times out is reported as a violation of checker "mutex-undecided":
// the run cannot claim it was safe.
package check
