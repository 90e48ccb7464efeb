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
// naming the smallest TTL accepted (MinTTL): a TTL of 1s, which earlier
// versions accepted, lets cells die while the holder's Lost is still open.
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
// A Lease owns two goroutines (the renewer and the watchdog); Stop cancels
// both and waits for them. This package is shared by all lock algorithms and
// sits below them; it uses only the injected clock, never the wall clock.
package lease
