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
// The mutex model judges the plain holds: one exclusive request of one id
// (a Lock call, or a group of that one request). Every hold, plain or not,
// is also judged by access.
//
// access: the lock manager's holds (Shared locks, groups, hierarchical ids
// under Separator "/") by compatibility. Each acquisition record carries the
// requests it made (history.Record.Members; none means one exclusive request
// of its Lock). Two holds of different processes that certainly overlapped —
// each had returned from its Lock call before the other can have ended, the
// same end bound as the mutex model's — must not hold one id in
// incompatible accesses (the multi-granularity matrix, kept here on its own
// and tested against the library's), and must not hold an id in an access
// incompatible with the intention a descendant's hold implies on it (IS
// below a reader, IX below anything else): X on "L" conflicts with anything
// on "L/a", S on "L" with X on "L/a", S with S is fine. The intentions are
// derived from the requests, not from what the library says it took, so a
// manager that skips them (the ctl-skip-intention control) is caught. The
// check is pairwise: sound, but blind to a chain of near-overlaps that the
// porcupine model would reject; pairs of plain holds of one id are left to
// the mutex model. Accesses are judged as requested: in mode legacy every
// member is taken exclusively, which is stronger and cannot hide a
// violation.
//
// fenced: on the register's log, in the server's order: no accepted write
// to the fenced register lost an update (the value the writer read is the
// value it overwrote); the tokens of accepted writes strictly increase per
// lock id; every rejected write comes from a holder whose lease had lapsed
// (a rejection before the writer's deadline means a successor was admitted
// while it still held the lock).
//
// tokens (tokens.go): on the plain holds' acquisition records, a grant
// whose Lock call began after another holder's returned carries a higher
// token (Lemma 7: a token is drawn inside its Lock call, and the global
// cell's Next returns more than every value returned before it was sent);
// and the holds of one worker process with one owner id — one store hold
// that local handoff passed between its goroutines — carry rising tokens
// in the order their Lock calls returned (Theorem 6a). Those holds, past
// the first of each store hold, are counted as local handoffs
// (Report.LocalHandoffs).
//
// Holders: a record's Process names its holder, a worker process or, with
// rbworker --goroutines, one of its goroutines (history.Holder,
// "<process>/g<i>"). Every checker above judges each holder as one client,
// so two goroutines of one process holding one id at once are caught like
// two processes; the bypass bound below counts worker processes.
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
// bypass: with Options.HealNS set, on every flat lock id taken only in modes
// new and combined after the heal, counting plain holds only (a shared or
// grouped acquisition is neither counted nor judged: the 2(n−1) bound is
// the exclusive queue's, and a group's wait spans several queues), no Lock call that began after the heal saw more
// than 2(n−1) acquisitions by others while it waited (n processes): the
// queue lock's bound, as the model checks state it (propertytests). The
// count is of store acquisitions by other worker processes: the holds of
// one process and one owner id (a store hold handed on by local handoff)
// count once, and a waiter's own process's goroutines not at all.
//
// scope: the records of a run on two data centres carry their lock's scope
// and their worker's data centre (history.Record.Scope, DC). A global
// lock's key is its id in every data centre, a DC-local lock's
// history.LocalKey(id, dc), so the mutex model above judges a global lock
// across data centres and a DC-local one within its own. The scope checker
// adds that a DC-local record is about its worker's own data centre's lock,
// and that a global record has no DC-local key.
//
// dc-progress: with Options.LocalProgress and DC partitions in
// Options.Partitions, every data centre took some DC-local lock during the
// partitions. Report.Scopes counts holds per scope and data centre, and
// those that returned during a partition.
//
// lockd-loss: with Options.LockdEvents (a lockd killed or paused, a client
// cut off from its lockd), every hold of an affected client that spanned
// the event — acquired before its heal began, not ended before its
// injection — ended by a loss report, never by a successful Unlock as if
// nothing happened (lost.go); with Options.LockdMovers (clients given
// every lockd, which fail over), no hold of theirs that spanned any such
// event was lost with its time ahead (a lost record not marked expired).
// Report.Moves sums their moves (history.Move files under
// history.MovesDir). A lockd client's hold ends in its history at
// the instant the client knew of the loss (rbworker), so mutex and access
// above find no other holder before that instant. A lockd hold's deadline
// is only that instant, so the fenced checker's rejection rule is weak for
// lockd holds; mutex judges them in full.
//
// deadlock, cycle and transfer: the lock-manager workers' histories (history.Event
// files under history.LockmanDir; Run reads them, and judges their
// register requests, on ids "dl-N" and "tx-N", apart from checkRegister's)
// are judged by three checkers of their own (deadlock.go, cycles.go,
// transfer.go).
// deadlock is an oracle built from the recorded waits and holds alone:
// every acquisition that failed with ErrDeadlock must, at some instant of
// its wait, have waited in a cycle of processes each waiting for an id the
// next possibly held then in an incompatible access (holds from their Lock
// call's invoke to their release's return, waits from invoke to return,
// every interval widened by the 100 ms the harness check allows, so the
// oracle errs towards accepting); the reported cycle must list no
// reentrant acquisition and no compatible pair; and two processes' holds of
// one dl- id in incompatible accesses must not certainly overlap (from the
// Lock call's return to the last instant the worker saw Lost() open). Its
// liveness figures are the ErrDeadlocks the history confirms and the
// longest wait, overall and after the final heal. transfer counts the
// sharers of one owner identity as one holder: an owner's holds of a tx- id
// that follow one another without a gap (the successor's Adopt returned
// before the giver's last certain instant) form one piece, and two owners'
// pieces must never certainly overlap — no third process inside a handover,
// none admitted in a gap while the successor held. Its fenced registers
// lose no update and accept tokens in non-decreasing order (a successor
// writes under its giver's token).
//
// cycle (cycles.go) judges the other half of docs/algorithms.md §8.5,
// Theorem 13 (every lasting cycle is broken), strictly where deadlock is
// lenient: from the same waits and holds it finds every interval in which
// a cycle certainly existed — each member certainly waiting (invoked, not
// returned) for a dl- id the next certainly held (from its acquisition's
// return to the last instant it saw Lost() open) in an incompatible
// access, every interval narrowed by the 100 ms the harness check allows —
// and reports one that lasted longer than CycleBound (After + Every + 5D +
// 0.5 s = 5 s with the workers' After 500 ms, Every 250 ms and D = 750 ms)
// outside the faults (Options.Faults, each from injection to 5 s past its
// heal: the theorem assumes store requests succeed, and a paused worker
// cannot run its rounds). Reentrant acquisitions never wait and are left
// out; compatible accesses make no edge. Its figures are the cycles found
// (those of three processes or more apart) and the longest, whole and
// outside faults: how much it had to judge.
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
