"""What lockd's answers say about a session's time and its locks: an answer
saying lockd ended the session or does not know it (ended), a KeepAlive's
answer (answered; ask sends one cut short), and a LOCK_LOST event
(lost_at). Each applies only while the session still uses the lockd that
answered (s._conn is c): an answer from a lockd a move left says nothing of
the session that moved. The session's own deadline and loss live in
Session (_deadline, _lose), each lock's in valid.LockTimes."""

import time

from lockstep.lockd.errors import LockdError
from lockstep.lockd.locks import seconds
from lockstep.v1 import lockd_pb2 as pb


def ended(s, c, err):
    """Loses s, if it still uses c, when err (a Lost) says lockd ended it
    or does not know it; a lost lease (REASON_LOST) is that lock's alone."""
    if s._conn is not c:
        return
    if err.reason == "REASON_SESSION_EXPIRED":
        s._lose(f"lockd ended the session: {err}", err.detail.lost_lock_ids)
    elif err.reason == "REASON_UNKNOWN_SESSION":
        s._lose(f"lockd no longer knows the session (restarted since it was opened?): {err}")


def answered(s, c, sent, res):
    """Applies a KeepAlive answer res at c to a call sent at sent: the
    session's deadline and each named lock's move on (valid.py), if s still
    uses c."""
    with s._mu:
        if s._conn is not c:
            return
        s._deadline = max(s._deadline, sent + s.ttl)
        valid = {s._names.get(h, h): seconds(v) for h, v in res.valid_for.items()}
        s._times.answered(sent, valid)


def ask(s, c):
    """One KeepAlive at c, cut at a third of the TTL (a lockd that hangs
    must not hold the caller): (its send, its answer), or None if it
    failed."""
    sent = time.monotonic()
    try:
        return sent, s._call("KeepAlive", pb.KeepAliveRequest(session_id=c.id), timeout=max(s.ttl / 3, 0.01), conn=c)
    except LockdError:
        return None


def lost_at(s, c, handles):
    """Loses the locks of handles a LOCK_LOST at c named."""
    with s._mu:
        if s._conn is not c:
            return
        s._times.lose([s._names.get(h, h) for h in handles])
