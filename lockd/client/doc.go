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
// and the rest hold as they do in-process. A Session is a lockstep.Unit:
// Session.Commented names its unit of work in deadlock reports; the
// comment must be UTF-8 (a protobuf string), and Lock refuses another
// comment before sending it.
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
//     it received that call, which was later;
//   - the lock's own time runs out. lockd says, in the answer that grants a
//     lock and in every KeepAlive answer, how long each lock is certain to
//     stay valid even if lockd renews nothing more (the library's
//     lockstep.Expiring, computed as lockd answers). The client counts it
//     from the send of that call, never past the session's TTL, and a lock
//     a KeepAlive answer leaves out gets no more time. KeepAlives go out
//     at least twice within the shortest such time.
//
// The second rule makes a lockd killed or shut down, whose connections the
// kernel closes, a loss at once. The fourth makes a lockd that stops
// renewing — paused, cut off from Cassandra, or its host gone without
// closing its connections — a loss no later than lockd's own lease
// deadline, which comes before the lock's cells can expire in the store
// (docs/algorithms.md, section 2, Corollary 1a): no other process can be
// granted the lock while this client still counts it held, as long as the
// two machines' clocks run at nearly the same rate. A blocking Lock granted
// late in a long wait asks once more at once (its time counted from the
// Lock call's send would be short).
//
// # Fail-over
//
// With Options.Endpoints (further lockds of the same cluster: the same
// store and peer key; Open refuses a lockd without one) a session whose
// lockd fails moves to another with its locks (docs/algorithms.md, §8.8).
// The client reads its identity's peer token again after every Lock,
// Unlock, UnlockAll and Adopt (one more call each), and at each move from
// the new lockd before it uses it. When a keep-alive or a
// call goes unanswered (Unavailable, DeadlineExceeded; each keep-alive is
// cut at half the time left) or the watch stream breaks, the session opens
// a session on the next lockd and adopts the token there: each Lock keeps
// working — the same value, ids and fencing token; its Handle and Owner
// change; nothing is released or taken again. A lock the token did not
// name, or the new lockd found no longer held, or whose own time ran out
// before the adoption was answered, is lost (Lost closes; Unlock returns
// lockstep.ErrLost); a move not done
// within the session's TTL ends the session, as without fail-over. A Lock
// is handed out only with a peer token naming it (handout.go): one
// answered by the old lockd after the move began, or whose GetToken went
// unanswered, is given back there and returns an error wrapping
// ErrUnavailable (Lock again), so no Lock the caller received is one a
// move could not carry. A lockd only cut off keeps its
// share of the locks until its old session lapses: a lock unlocked after
// the move is free only then. A move another lockd refuses (a token it
// cannot adopt) ends the session at once, saying so; a token none of whose
// locks is still held (UNKNOWN_TOKEN: they were unlocked as the move
// began) is no refusal: the move goes on with nothing adopted, and the
// locks it named that the session still counted are lost. Session.Moves counts
// the moves; Options.OnMove, when set, is told of each (a Move: the lockds
// left and reached, when it began and ended, the Locks kept and lost, and
// for a move that failed, why). A lockd shut down gracefully tells its
// sessions DRAINING: a session with Endpoints moves then, before anything
// fails, and closes the session it left there, which releases nothing
// (§8.8, "Draining"); a rolling restart of the lockds keeps its locks.
//
// Open itself tries Open's lockd and then each endpoint in turn, around
// the list twice, passing over a lockd that cannot answer (a connection
// it closed under the call, or none accepted); a refusal ends it. A
// retried OpenSession may have opened a session whose answer was lost:
// it holds no lock and lapses after its TTL.
package client
