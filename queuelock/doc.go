// Package queuelock is the new, fair lock algorithm of seed 000 §5 (listings
// 6–8), with the refinements of DESIGN §4.2 that the documents lack.
//
// It depends on the root package (Store, Clock), package clock and the
// internal lease and turn packages, never on a database driver: the same code
// runs on Cassandra (package cassandra) and in the simulator (package model).
//
// # Algorithm
//
// All cells of one lock id live in one partition (row key = the id), in this
// order (columns.go):
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
// delete is retried by the next Unlock (handle.go).
//
// # Safety (theorems 1 and 3)
//
// Success requires "I wrote my owner cell, then read the owner cells and mine
// was the only one". By lemma 1 (QUORUM writes and reads: a read that starts
// after a write completed sees it), two acquisitions that both wrote cannot
// both read only their own cell. The queue is not involved in this argument,
// so mutual exclusion does not depend on clocks, the floor or the queue order.
// Every cell carries a TTL; the lease (internal/lease) renews a holder's cells
// every Renew and closes Lost() when no renewal succeeded for TTL/2, before
// they can expire (given clock rates and replica skew well below TTL/2).
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
//     number the Lockers that used the id, not its acquisitions. (DESIGN
//     §4.2 asks for time-prefixed owner cells and a floor of "now − max skew
//     − margin"; time-prefixed owner cells would put them under the floor,
//     and a margin of a TTL costs every acquisition of a TTL on every read.)
//  4. A Lock whose ctx ends deletes its cells before returning.
//  5. A first-in-line waiter does not write its owner cell while another
//     owner cell is live (listing 7 would write and delete one per poll,
//     leaving a tombstone each time); the claim also refreshes the queue cell.
//  6. Goroutines of one Locker contending for one id queue in-process (FIFO,
//     internal/turn); only the first talks to the store.
//  7. The uncontended fast path (DESIGN §4.2 item 5, fastpath.go): Lock first
//     writes its queue and owner cells in one request and checks both with
//     one read; first in line and alone means held, with lemma 1's success
//     condition unchanged. Uncontended Lock + Unlock is then 3 sequential
//     requests instead of the documents' 6–7. An arrival that finds the lock
//     busy withdraws its owner cell and waits in line; an id seen contended
//     takes the slow path for a TTL, so repeated arrivals cannot starve the
//     head. Options.NoFastPath turns it off.
//
// Write timestamps of a Locker are strictly increasing (clock.Timestamps), so
// a cell rewritten after its own delete beats its tombstone. A queue cell is
// only ever written or deleted by the acquisition named in it; an owner cell
// only by its Locker's one acquisition of the id in the store (the holder of
// the in-process turn), so a late write of an earlier acquisition loses to
// the later one's newer timestamp.
package queuelock
