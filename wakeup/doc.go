// Package wakeup carries the queue lock's optional wake-ups on release
// (queuelock.Options.Wake): a releaser tells the waiter next in line that
// the lock was released, so the waiter reads the queue at once instead of at
// its next poll.
//
// Without queuelock.Options.Handoff a wake-up is a hint, never a grant. The
// receiving Locker only claims earlier than it would have; whether the
// claim holds is decided by the claim's own read (first in line and alone:
// queuelock's lemma 1), exactly as after a poll. So a wake-up that is lost,
// duplicated, delayed, reordered or forged can cost latency or one claim
// that withdraws, never safety or the bypass bound (docs/algorithms.md,
// section 4.9). With Handoff, a releaser whose lease was open when its
// handoff was acknowledged sends a grant, on which the waiter holds without
// a read (section 4.12): lost, duplicated, delayed or reordered it is still
// safe, but one forged with the key grants a lock, so the key is then a
// credential of the weight of write access to the lock table.
//
// It depends on the standard library only. A Message is sealed with
// HMAC-SHA256 under a key the whole fleet shares (Seal, Open); the
// Transport moves sealed datagrams between processes. UDP is a Transport
// over one UDP socket per process; tests use an in-memory one. What it
// needs of the network: every process that waits must be reachable from
// every process that releases on the UDP address it publishes (Addr), and
// every process must hold the same key.
package wakeup
