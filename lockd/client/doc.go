// Package client is the Go client of lockd, the lock manager served over the
// network (package lockd, API lockstep.v1).
//
// A Session is one lockd session, kept alive in the background until Close,
// and a lockstep.GroupLocker: code written against the library's Locker
// interface takes the same locks through a lockd by swapping the Locker.
//
//	s, err := client.Open(ctx, "http://127.0.0.1:7420", &client.Options{Token: token})
//	if err != nil {
//		return err
//	}
//	defer s.Close(context.WithoutCancel(ctx))
//	l, err := s.Lock(ctx, "invoice/42")
//	if err != nil {
//		return err
//	}
//	defer l.Unlock(context.WithoutCancel(ctx))
//
// Errors carry lockd's status and reason (*Error) and wrap the library's
// sentinels, so errors.Is(err, lockstep.ErrLocked), lockstep.ErrLost,
// lockstep.ErrDeadlock (with a *lockstep.DeadlockError naming the cycle)
// and the rest hold as they do in-process. lockstep.WithComment on Lock's
// ctx names the unit of work in deadlock reports.
//
// Token and Adopt are seed 003's getToken and setToken: another session of
// the same lockd adopts this session's identity and holds its locks, with
// the same handles and fencing tokens, until the identity's last session
// leaves (lockd/doc.go, "Identities").
//
// # When a lock counts as lost
//
// A Lock's Lost channel closes, and the holder must stop the work the lock
// guards, as soon as any of these happens:
//
//   - lockd says so: the lock's lease was lost (LOCK_LOST), the session
//     lapsed (EXPIRED) or was closed (CLOSED), on the session's watch
//     stream, or a call's answer says SESSION_EXPIRED;
//   - the watch stream breaks: the client can no longer be told of a loss
//     in time (lockd stopped, or the link to it broke), so it assumes one;
//   - no keep-alive has been answered for the session's TTL, counted from
//     the send of the last one that was: lockd ends the session a TTL after
//     it received that call, which was later.
//
// The second rule makes a lockd killed or shut down, whose connections the
// kernel closes, a loss at once; a lockd host that vanishes without closing
// them is noticed only by the third rule or the transport's own timeouts,
// while that lockd's leases in the store may lapse sooner (its --lock-ttl).
// Work that must be safe against that case checks the lock's fencing token
// (lockstep.Fenced) where it writes, as with any lease-based lock.
package client
