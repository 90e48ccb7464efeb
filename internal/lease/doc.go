// Package lease keeps a held lock's cells alive and says when it could not.
//
// Every lock cell in lockstep carries a TTL, so a crashed holder's cells
// vanish. A live holder therefore rewrites its cells every Renew (at most a
// third of the TTL). If no renewal has succeeded for half the TTL, the lease
// is lost: Lost is closed, renewing stops, and the holder must stop work,
// because its cells may expire soon after and another process may acquire
// (seed 000 §7.1; the C# implementation's LockAliveToken). Half the TTL,
// measured from the moment the last successful renewal was sent, leaves the
// other half as the margin for clock-rate differences, replica clock skew and
// the time the holder needs to notice.
//
// Renewal stops after loss on purpose: a rewrite that lands after the cells
// expired would resurrect an owner cell beside a new holder's.
//
// A Lease owns two goroutines (the renewer and the watchdog); Stop cancels
// both and waits for them. This package is shared by all lock algorithms and
// sits below them; it uses only the injected clock, never the wall clock.
package lease
