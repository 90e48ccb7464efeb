"""Handing a granted lock out: a session that moves (failover.py) gives its
caller a lock only with a peer token that names it (docs/algorithms.md,
section 8.8, "Handing a Lock out"; the Go client's handout.go).

After a Lock or TryLock is answered, the session reads its identity's peer
token at the lockd that granted it (token_after) and records the lock and
that token in one step, while the session still uses that lockd and no move
off it is under way (Session._granted): every later move then carries a
token naming the lock. When that cannot be — a move off the lockd began
before (its token was chosen when it began, and names no lock granted
after), or the lockd gave no token — the lock was never the caller's: the
call waits for the move, gives the lock back and fails (not_carried),
rather than hand out a lock the next move would lose.
"""

import grpc

from lockstep.lockd.errors import LockdError, Lost, Unavailable
from lockstep.v1 import lockd_pb2 as pb


def hand_out(s, c, held, items, sent, late):
    """Records held, which c's lockd granted to a lock call sent at sent
    (late: a KeepAlive's send and answer after it, or None), and returns its
    name; a session that moves first reads a token naming it. Raises (after
    not_carried) when the lock is not handed out."""
    ids = ",".join(it.id for it in items)
    moving = s._moving()  # a session that cannot move needs no token
    peer = None
    if moving and not _off(s, c):
        peer, perr = token_after(s, c)
        if perr is not None and not _off(s, c):
            s._failed(c, perr, None)  # a lockd that could not answer GetToken failed: move now
            raise not_carried(s, c, held, f"lockd {c.endpoint} granted {ids} but gave no peer token naming it, so no move could carry it", perr)
    name = s._granted(c, held, items, sent, late, peer, moving)
    if name is None:  # answered by a lockd the session moved off, or is moving off
        raise not_carried(s, c, held, f"the session moved off lockd {c.endpoint} while it granted {ids}")
    return name


def _off(s, c):
    """Whether s has moved off c, or a move off c is under way."""
    with s._mu:
        return s._conn is not c or s._moving_off is c


def token_after(s, c):
    """Reads, at c, the peer token of s's identity after a lock was granted
    there (so it names that lock): ((token, its GetToken's number), None),
    or (None, the LockdError) if GetToken failed."""
    with s._mu:
        s._peer_seq += 1
        seq = s._peer_seq
    try:
        tok = s.client.call("GetToken", pb.GetTokenRequest(session_id=c.id), timeout=max(s.ttl / 3, 0.01), endpoint=c.endpoint).token
    except LockdError as err:
        return None, err
    return (tok, seq), None


def not_carried(s, c, held, why, cause=None):
    """Ends a call whose lock held, granted at c, is not handed out (why
    says why; cause is the error behind it, if any): waits for a move under
    way to finish, gives held back at c (a lockd that does not answer
    releases it when the session left there lapses), and returns the error
    to raise: Lost if the move failed and the session is lost, otherwise
    Unavailable, after which the caller may lock again."""
    with s._move_mu:  # the move under way, if any, is done once it is free
        ended = s._lost.is_set()
    given = "it was given back there"
    try:
        s.client.call("Unlock", pb.UnlockRequest(session_id=c.id, lock_id=held.lock_id), timeout=max(s.ttl / 3, 0.01), endpoint=c.endpoint)
    except LockdError as err:
        given = f"it could not be given back ({err}); that lockd releases it when the session left there lapses"
    if ended:
        return Lost(grpc.StatusCode.ABORTED, f"{why}, and {given}; the session is lost: {s.lost_reason()}", None)
    if cause is not None:
        why = f"{why} ({cause})"
    return Unavailable(grpc.StatusCode.UNAVAILABLE, f"{why}, and {given}: lock again", None)
