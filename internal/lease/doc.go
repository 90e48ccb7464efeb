// Package lease keeps a held lock's cells alive and says when it could not.
//
// Every lock cell in lockstep carries a TTL, so a crashed holder's cells
// vanish. A live holder therefore rewrites its cells every Renew. If no
// renewal sent within the last Window has succeeded, the lease is lost: Lost
// is closed, renewing stops, and the holder must stop work, because its cells
// may expire soon after and another process may acquire (seed 000 §7.1; the
// C# implementation's LockAliveToken).
//
// Window is derived from the true lifetime of a cell, not from the TTL alone
// (Config.Window has the derivation): Cassandra expires cells in whole
// seconds on each replica's own clock, so a cell written with TTL t may live
// only t − 1s − the skew between two servers' clocks. The window is half of
// that, and a TTL that leaves less than MinWindow is refused with an error
// naming the smallest TTL accepted (MinTTL): a TTL of 1s would let cells
// die while the holder's Lost is still open.
//
// Every "how long since" here runs on elapsed time (lockstep.Clock.Elapsed,
// through Stamp), never on the wall clock: a wall clock stepped back by NTP
// would otherwise keep Lost open while the cells expire on the servers.
//
// Renewal stops at the deadline on purpose: a rewrite that lands after the
// cells expired would resurrect an owner cell beside a new holder's. The
// renewer checks the deadline before each renewal, so it sends none after
// the deadline it has seen; a renewal sent just before it, or delayed between
// the check and the send (a pause), can still land late. Safety does not
// depend on it — the late holder's Lost is closed, and a resurrected cell
// carries its TTL — but a contender may wait until that TTL runs out.
//
// # One scheduler per Locker
//
// Like etcd's Session, lease liveness belongs to the Locker, not to each
// lock: a Locker owns one Scheduler, and every lease it starts (held locks,
// and a queue lock's waiting queue cell) is an entry in the Scheduler's
// min-heap, keyed by its next event — its next renewal, or its deadline
// while a renewal is in flight or waiting for a slot (ties by the order of
// Start). One goroutine sleeps on the Locker's clock until the earliest
// entry; Start, a finished renewal and a freed slot wake it early (by
// cancelling its sleep's context) when they bring an earlier entry. A due
// renewal runs on a goroutine that lives only for its request, at most
// Options.MaxInFlight (32) at once. The scheduler's goroutine exists only
// while some lease is scheduled. So a Locker holding 10,000 locks costs one
// goroutine plus the renewals in flight, and a held lock at rest none (the
// old Lease had two goroutines each: a renewer and a watchdog).
//
// # Why the guarantees are unchanged
//
// Lost closes no later than before. Lost and IsLost still check the deadline
// themselves, on every call, whatever the Scheduler is doing: a caller that
// looks at Lost before working never works at or past the deadline, even if
// the Scheduler's goroutine was paused, has not been granted its wake-up by
// a simulator, or is busy. That is the guarantee the safety argument uses
// (Config.Window: Lost is closed for every look made at or after the send of
// the last successful write plus Window, which is half a cell's sure life);
// the Scheduler only closes the channel for those who wait on it rather than
// look, as the watchdog goroutine did, and it does so on time, because the
// deadline is an entry of the heap like any renewal and the goroutine never
// waits on anything but its clock and its own mutex: not on a slot, not on a
// store request, not on a renewal's goroutine. A hung store or a full set of
// slots delays renewals, never a deadline.
//
// No renewal is sent at or past the deadline. The renewal's goroutine checks
// the deadline right before it sends (as the renewer did), whenever the
// Scheduler launched it; and the Scheduler looks at the deadline of every
// due entry before it treats it as a renewal, so an entry found late (after
// a pause) is dropped, not renewed. A lease declared lost by a caller stays
// lost: it is never renewed again, even if a renewal sent before the
// deadline succeeds afterwards.
//
// The lease still counts from sends. lastOK is the Stamp taken right before
// the renewal's request, and it is raised only when that request succeeds
// and neither Stop nor the deadline cancelled it meanwhile. At the deadline
// the Scheduler cancels the renewal in flight, as the watchdog did.
//
// Retry timing is the same: the next renewal is due Renew after the previous
// one finished, Renew/4 after a failure, and the first Renew after Start
// (or Config.FirstRenew after it, if that is shorter: a queue lock held in
// an access others share renews first after a Poll, to give its queue cell
// up early).
// Only the launch can come later than the due time: by one scheduler
// wake-up, by 1ns per renewal due at the same moment (the Scheduler
// launches one per wake-up, so that simulated runs stay deterministic: two
// goroutines started at once would reach the store in an order the Go
// runtime picks), and by the wait for a slot. Renew ≤ Window/2 leaves the
// other half of the window for such delays, as it left it for a slow
// renewer goroutine; a lease whose renewal is launched too late is lost, not
// unsafe.
//
// A lease has at most one renewal in flight or waiting, as it had one
// renewer: its entry is filed by its deadline until that renewal finishes,
// and a deadline entry that finds the deadline moved by a renewal that
// succeeded but has not finished is filed again, not renewed.
//
// Stop returns only when no renewal of its lease is in flight: it takes the
// lease out of the heaps, cancels the renewal in flight and waits for that
// renewal's goroutine, so the caller may delete the cells knowing no rewrite
// will follow.
//
// # When the slots stay full
//
// A renewal that falls due while MaxInFlight renewals are in flight waits,
// in the order renewals fell due, for a slot; its lease's deadline entry
// stays in the heap. A slot is released when its renewal returns, or at once
// when its lease is stopped or reaches its deadline (the canceller releases
// it, so the next launch never depends on how fast a cancelled goroutine
// winds down). Every renewal in flight is therefore cancelled at its lease's
// deadline at the latest: slots full for a whole Window mean a store that
// answers nothing within the Window, in which case every lease waiting for a
// slot is lost at its own deadline, exactly as its own renewals would have
// lost it. The bound keeps a hung store from costing a goroutine per held
// lock; a store that merely answers slowly costs renewal latency first.
//
// This package is shared by all lock algorithms and sits below them; it uses
// only the injected clock, never the wall clock. The planted defect
// TestingKnobs.LostTrustsScheduler removes Lost's own
// check, trusting the Scheduler to close Lost on time; the model checks'
// control of that name (propertytests) catches it by the lease property.
package lease
