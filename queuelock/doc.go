// Package queuelock is the new, fair lock algorithm of seed 000 §5 (listings
// 6–8), with refinements the documents lack (§ Progress below).
//
// It depends on the root package (Store, Clock), package clock and the
// internal lease and turn packages, never on a database driver: the same code
// runs on Cassandra (package cassandra) and in the simulator (package model).
//
// # Algorithm
//
// All cells of one lock id live in one partition (row key = the id), in this
// order (package internal/layout owns the format and its ordering facts):
//
//	"<20-digit µs>/q/<owner>"     queue cell
//	"~o/<process>/<incarnation>"  owner cell ("main row" of the seed) of one
//	                              Locker; its value names the owner
//	"~~floor"                     published read floor, see below
//
// Lock (listing 7): write a queue cell named by the current time; re-read the
// partition until our queue cell is the first one and no other owner cell is
// live; then claim: write our owner cell and read the owner cells. If ours is
// the only one, the lock is held; otherwise delete it and look again. TryLock
// (listing 8) fails without writing when anything is live, and otherwise does
// the same once (retrying a claim that met a concurrent one, up to
// lockstep.MaxTryAttempts claims). Unlock deletes both cells; a failed
// delete is retried by the next Unlock (part.go).
//
// # Foreign cells
//
// A read that returns a cell of the partition which is none of the three
// kinds, or whose value does not fit its kind (an owner cell naming no owner,
// a floor that is not 8 bytes), fails the acquisition: Lock and TryLock
// return a *lockstep.ForeignCellError (errors.Is lockstep.ErrForeignCell)
// naming the table, row and column, and Lock does not retry it. No
// lockstep Locker writes such a cell, so another writer shares the table.
// The acquisition then ends as one whose ctx ended does: its queue and owner
// cells, if it wrote any, are deleted, the foreign cell is left as it is,
// and nothing is learned from the read (floor, hybrid clock). Skipping the
// cell, as this package once did, is not safe in general: an owner cell
// whose value names no owner may be some writer's claim, and lemma 1's check
// must count every owner cell. Refusing it is: an acquisition that fails
// holds nothing. Cells that sort below where a read starts (under the
// floor, or before any queue name) are never read and never matter. The
// model-store tests (foreign_test.go) check that each kind of foreign cell
// reaches the caller of Lock and TryLock and changes nothing; with the
// planted SkipForeignCells defect (build tag lockstep_bugs) the same checks
// fail (foreign_bugs_test.go).
//
// # Safety (theorems 1 and 3)
//
// Success requires "I wrote my owner cell, then read the owner cells and mine
// was the only one". By lemma 1 (QUORUM writes and reads: a read that starts
// after a write completed sees it), two acquisitions that both wrote cannot
// both read only their own cell. The queue is not involved in this argument,
// so mutual exclusion does not depend on clocks, the floor or the queue order.
// Every cell carries a TTL; the lease (internal/lease) renews a holder's cells
// every Renew and closes Lost() when no write sent within the lease window
// succeeded. The window, (TTL − 1s − MaxServerSkew)/2 on elapsed time, is
// half of what a cell surely lives given Cassandra's whole-second expiry and
// the servers' clock skew (internal/lease/window.go), so Lost() closes before
// any replica can count the cells expired, whatever the wall clock does.
//
// # Lock accesses
//
// An acquisition asks for an id in one of the five accesses of
// lockstep.Access (IS, IX, S, SIX, X; Exclusive by default), and its queue
// and owner cells say which in their values (internal/layout; an exclusive
// acquisition's cells are the bytes they always were). The documents' rules
// become rules about compatibility, and reduce to them for Exclusive, which
// is compatible with nothing:
//
//   - A waiter may claim when its access is compatible with every live queue
//     cell in front of it (for X: it is first in line) and with every live
//     owner cell but its own (for X: none is live).
//   - A claim holds when, read after its write, its owner cell is there and
//     every other owner cell is compatible with its access (for X: its cell
//     is the only one).
//   - TryLock fails without writing when any live cell conflicts with its
//     access.
//
// Safety (theorem 1 for accesses). Let A and B hold one id at once in
// incompatible accesses. Each wrote its owner cell and then read the owner
// cells; by lemma 1, the one whose read started later — say B — started it
// after A's write completed, and A's cell was live then (A held), so B's
// read returned it. B's success condition requires every other owner cell
// to be compatible with B's access: A's is not, a contradiction. The
// argument is lemma 1's, word for word, with "the only owner cell" replaced
// by "no incompatible owner cell"; it needs only that compatibility is
// symmetric, which the matrix is. It does not involve the queue, so sharing
// changes nothing for clocks, floors or fencing: tokens increase across
// owners that conflict, and each of two sharing holders has its own.
//
// Fairness. Queue order stays FIFO: a request is granted when it is
// compatible with every earlier live request, so neighbouring readers share,
// and a reader that enqueues behind a waiting writer waits for it: it is not
// compatible with every request in front of it. The bypass bound of floor.go
// holds as it is (it is about who is visible in line, not about who may
// share). Wake-ups go, as before, to the waiter right behind the releaser;
// other waiters that became free to claim notice on their next poll.
//
// One process, several holders. Goroutines of one Locker queue in-process
// with the same rule (internal/turn), so compatible requests of one process
// hold an id at once. Each holder has a turn slot, the smallest not in use,
// and its owner cell is its Locker's column for that slot
// (layout.SlotColumn): slot 0, the only one an exclusive acquisition ever
// has, is the Locker's column of old. Everything said below about "the
// Locker's owner cell" holds per slot: the one acquisition holding a slot
// writes its column, and an owner cell's tombstones number the slots a
// Locker ever used at once, not its acquisitions.
// An Unlock whose delete failed retries it holding its slot again
// (turn.Reserve: only if no acquisition has taken the slot meanwhile, and
// granting none while it holds), so the retry deletes its own owner cell
// whatever other slots are held, and never one a newer acquisition wrote.
// Requiring the whole id to be free instead (planted RetryNeedsFreeID)
// leaves a reader's cell behind while another reader holds, and keeps
// writers out for a TTL after both released (access_release_bugs_test.go).
//
// A Locker that predates accesses reads an owner cell's whole value as its
// owner id and counts every owner cell as a holder: it treats readers as
// writers, which excludes more than it must and never less, so a fleet may
// mix versions while the new code is rolled out. (It does not know slot
// columns either, and needs not: it counts owner cells, whatever their
// column.)
//
// The planted ReaderBypass (a non-exclusive request ignores the line and
// claims when the owner cells allow) is caught by the unit check
// access_bugs_test.go and by the model checks' bypass bound
// (propertytests).
//
// # Fencing tokens
//
// With Options.Fencing set, an acquisition draws a token from the global
// time service (clock.Global.Next) after its claim won, and keeps it only if
// the claim's lease — the window counted from the send of the claim's write,
// on elapsed time — was still open when the token arrived (held.go). The
// owner cell is not renewed during the draw, so that check is exactly "the
// owner cell was alive at every replica until the token arrived". Tokens of
// successive owners then strictly increase: holder A's token returned while
// A's lease was open, so A's owner cell was alive at every replica until
// then; any later holder B claimed after that moment (lemma 1: B's claim
// read would have seen A's cell), so B's draw started after A's draw
// completed, and Next returns B a larger value (its contract: strictly
// greater than any value returned by a Next that completed before this one
// started). internal/fencing has the argument for every mode.
//
// A token that arrives after the lease lapsed, and a draw that fails, fail
// the acquisition: the owner cell is withdrawn, so nothing is left that
// could block others. Lock treats either like a lost claim — it keeps its
// place in line and claims again (after a poll, or after the store-error
// pause for a failed draw) until ctx ends; TryLock returns the error (one
// wrapping lockstep.ErrLost for a lapse, the store's error for a failed
// draw), having deleted its cells. Without fencing, Token returns 0.
//
// # Progress (theorems 2 and 4) and the refinements
//
//  1. Waiters keep their place: a waiter renews its queue cell like a lease,
//     so a wait longer than the TTL does not lose its position. If its cell
//     vanishes anyway (renewals failed), it takes a new place.
//  2. Queue names come from a hybrid logical clock (package clock) fed with
//     every queue time read, so a process whose clock lags cannot name a cell
//     in front of a waiter it has already seen: theorem 2's "time does not
//     decrease" holds per observer without a time service.
//  3. Reads start at a floor — the older of the oldest live queue cell the
//     process read last time and 2×MaxClockSkew before that read (floor.go
//     explains why that is sound) — so their cost does not grow with the
//     lock's history of tombstones: a hot id's reads step over the
//     acquisitions of the last 2×MaxClockSkew, not over the last TTL or more
//     of them. Owner cells are one column per Locker, rewritten by each of
//     its acquisitions, and sort after the queue: one slice from the floor
//     reads them all, so lemma 1 involves no floor, and their tombstones
//     number the Lockers that used the id, not its acquisitions. (A first
//     design had time-prefixed owner cells and a floor of "now − max skew
//     − margin"; time-prefixed owner cells would put them under the floor,
//     and a margin of a TTL costs every acquisition of a TTL on every read.)
//  4. A Lock whose ctx ends deletes its cells before returning.
//  5. A first-in-line waiter does not write its owner cell while another
//     owner cell is live (listing 7 would write and delete one per poll,
//     leaving a tombstone each time); the claim also refreshes the queue cell.
//  6. Goroutines of one Locker contending for one id queue in-process (FIFO,
//     internal/turn); only the first talks to the store.
//  7. The uncontended fast path (fastpath.go): Lock first
//     writes its queue and owner cells in one request and checks both with
//     one read; first in line and alone means held, with lemma 1's success
//     condition unchanged. Uncontended Lock + Unlock is then 3 sequential
//     requests instead of the documents' 6–7. An arrival that finds the lock
//     busy withdraws its owner cell and waits in line; an id seen contended
//     takes the slow path for a TTL, so repeated arrivals cannot starve the
//     head. Options.NoFastPath turns it off.
//
// # Reads paced by position in line
//
// How often a waiter reads follows how soon it can be next (pace.go): the
// waiter next in line reads every Poll/4; one at position k ≥ 2 waits half
// of (k−1) times the handoff interval it observed, at least Poll and at most
// Options.SlowPoll (≤ TTL/2). A waiter's read decides nothing for safety:
// lemma 1's check is the claim's own read, which is unchanged. Renewals of
// a waiting queue cell are the lease scheduler's (internal/lease), on the
// Renew period within the lease window, not the poll's, so a slow poll
// cannot let a waiting cell expire. The fairness argument above needs a
// waiter to read within the floor cell's life (2×TTL + Poll, less a second
// and the replica skew) after a bypass; SlowPoll ≤ TTL/2 keeps that with
// room to spare, so the bypass bound is unchanged.
//
// # Wake-ups on release
//
// With Options.Wake set (default off), a waiter writes its queue cell's
// value as "<owner>\nwake=<address>" (internal/layout): the address of its
// Transport. A winning claim's read returns the queue, so the holder knows
// the waiter right behind it with no extra request; after its Unlock's
// delete is acknowledged it sends that waiter a wake-up (package wakeup):
// the lock id, the releaser's and the waiter's queue cells, the releaser's
// wall time and a nonce, sealed with HMAC-SHA256 under the fleet's key, in
// one UDP datagram. The receiver drops a datagram whose MAC does not
// verify, one sent more than a TTL away from its own clock, one for a
// queue cell it is not waiting with, and beyond 64 at once or 1,000 a
// second per sending process; otherwise it ends the waiter's sleep, and
// the waiter claims at once, without a read first: it writes its owner
// cell, reads, and holds only if that read shows its queue cell first in
// line and its owner cell the only one (the fast path's condition);
// otherwise it withdraws the owner cell and goes on waiting. A handoff is
// then the release's delete, the datagram, the claim's write and read:
// the three round trips the issue names as the floor. A waiter acts on at
// most one wake-up per Poll/4, however many arrive. With wake-ups on, the
// waiter next in line polls every Poll (the fallback for a wake-up that
// is lost, or that no releaser knew to send: one who enqueued after the
// holder's claim), the others every SlowPoll.
//
// Safety does not depend on wake-ups: a wake-up only makes a waiter claim
// earlier, and whether the claim holds is decided by the claim's own read
// (lemma 1: theorem 1's argument above never mentions when claims happen
// or what prompted them). So a wake-up that is forged with the key,
// replayed, duplicated, reordered or late costs at most one claim that
// withdraws — a write, a read and a delete — per Poll/4 per waiter (and,
// as any claim, may make a concurrent claim of the true head fail once, a
// retry after a poll); one forged without the key costs an HMAC check.
// The bypass bound does not depend on them either: a claim after a
// wake-up holds only if its read shows it first in line, so it bypasses
// no one a read-then-claim would not; claims follow the stored queue,
// whenever they happen. Progress: a waiter still reads at least every SlowPoll,
// and the next in line every Poll, so a lost wake-up delays a handoff by
// at most Poll (SlowPoll for a waiter not yet next), and the liveness
// argument above holds with Poll replaced by SlowPoll.
//
// Mixed versions: a Locker without wake-ups (or from before them) never
// parsed queue cells' values, so it reads these cells as before, and a
// holder that sees a queue cell without an address sends nothing; that
// waiter polls, as it always did. Both ways the stored queue is the same.
//
// The model checks (package propertytests, fleet "new/wake": two processes
// with wake-ups beside one without) lose, duplicate, delay, reorder and
// forge wake-ups (with and without the key) and check mutual exclusion,
// the lease and ownership properties, the bypass bound and, in a quiet
// phase that loses every wake-up, progress. The planted WakeGrants (a woken waiter holds without the
// claim's read) is caught by mutual exclusion through a wake-up forged
// with the key; WakeOnly (waiters stop polling) by the progress check.
//
// What it needs of the network: every process that may wait must listen
// on a UDP port (wakeup.ListenUDP) that every process that may release can
// reach at the address it publishes, and every process must hold the same
// key (at least 32 random bytes, distributed like any other secret; rotate
// it by restarting the fleet with the new one: a process with the old key
// only loses wake-ups, and polls). Without that, leave Wake nil.
//
// # What a Locker keeps per id, and for how long
//
// A service that locks ever new ids ("invoice/<n>") must not grow without
// bound, in memory or in the table. Once no acquisition of an id is held or
// in flight in a Locker, the Locker forgets the id, and the id's partition
// holds no live cell, within a few TTLs:
//
//   - The in-process turn (internal/turn) lives only while held or awaited.
//   - The read floor (floor.go) is dropped a TTL after its last use, by an
//     amortized sweep or by the Locker's janitor (idstate.go), but never while
//     the id's turn is held or awaited. Dropping it is only conservative: the
//     next read starts at the floor cell's value, or at the partition's start
//     if the cell has expired, that is, lower than the dropped floor would
//     have; it sees every cell the floor would have shown it and more, and
//     pays for it in tombstones stepped over once. The floor guards no
//     safety argument (owner cells are read in full), and a lower floor
//     hides no one. Keeping it while the turn is held is what makes "a
//     claim publishes the floor its read started at" hold below: claim
//     and read happen under the turn, so the floor cannot vanish between
//     them.
//   - A contention hint (fastpath.go) is dropped when its time runs out — a
//     TTL after the contention was seen — which is exactly when the hint
//     already stopped applying: fastPathOK takes the fast path from then on.
//     Dropping it earlier would let an arrival write an owner cell sooner;
//     the sweeps never do.
//   - Queue and owner cells are deleted on release and carry the TTL anyway.
//     The floor cell carries a TTL of 2×TTL + Poll (whole seconds), renewed
//     by every claim, so an id no one claims any more has no live cell after
//     that.
//
// The floor cell's TTL does not weaken the fairness argument of floor.go. A
// waiter w whose name lies below a racing reader R's floor is invisible to R,
// and notices only through the published floor. R publishes with every claim
// the highest floor it knows (its own, kept while it contends, or a higher one
// read in the cell); so each claim by which R can bypass w leaves a floor cell
// above w's name, readable for at least 2×TTL + Poll − 1 s less the replica
// skew (Cassandra expires a cell in whole seconds on each replica's clock),
// which is longer than a waiter's poll and a read by more than a TTL. w reads
// at least every SlowPoll (≤ TTL/2) while it waits (and renews its queue
// cell, so it keeps waiting and reading), so it reads that cell and takes a
// new place above it a SlowPoll after the bypass. If another, higher floor was published before
// R's claim, the rewrite loses to it, but that floor also lies above w's name
// and was readable for as long after its own claim, earlier. A waiter that
// enqueues after a floor was published is named above it: floors trail their
// reader's clock by 2×MaxClockSkew, names trail it by at most MaxClockSkew.
// And while anyone waits, claims keep coming, each renewing the cell; when no
// one claims for longer than its TTL, no one is being bypassed.
//
// What the expiry costs: the first read of an id after it has been idle
// (unclaimed) for longer than the floor cell's TTL starts at the partition's
// beginning and steps over the tombstones of the id's queue cells that
// compaction has not purged yet (gc_grace_seconds). An id used in bursts long
// apart can make that first read expensive; its learned floor makes the
// following ones cheap again.
//
// Write timestamps of a Locker are strictly increasing (clock.Timestamps), so
// a cell rewritten after its own delete beats its tombstone. A queue cell is
// only ever written or deleted by the acquisition named in it; an owner cell
// only by its Locker's one acquisition of the id in the store (the holder of
// the in-process turn), so a late write of an earlier acquisition loses to
// the later one's newer timestamp.
package queuelock
