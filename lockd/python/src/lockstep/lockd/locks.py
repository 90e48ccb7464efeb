"""The locks of a session as it asks for them, records them and hands them
out: ACCESS and items (the LockItems of a Lock or TryLock), Lock (the
session's record of a lock it holds), renamed (the HeldLock its holder is
given), lost_or_gone (an Unlock error that leaves nothing to retry) and
seconds (a protobuf Duration in seconds)."""

from lockstep.lockd.errors import Lost
from lockstep.v1 import lockd_pb2 as pb

ACCESS = {
    "X": pb.ACCESS_EXCLUSIVE,
    "S": pb.ACCESS_SHARED,
    "IS": pb.ACCESS_INTENT_SHARED,
    "IX": pb.ACCESS_INTENT_EXCLUSIVE,
    "SIX": pb.ACCESS_SHARED_INTENT_EXCLUSIVE,
}


def items(ids, flat=False, no_mask=False):
    """"a/b" or ["a/b", ("a/c", "S")] → LockItems, each with the flags."""
    if isinstance(ids, str):
        ids = [ids]
    out = []
    for it in ids:
        id_, access = (it, "X") if isinstance(it, str) else it
        if access not in ACCESS:
            raise ValueError(f"access {access!r}: want one of {', '.join(ACCESS)}")
        out.append(pb.LockItem(id=id_, access=ACCESS[access], flat=flat, no_mask=no_mask))
    return out


def seconds(duration):
    return duration.ToTimedelta().total_seconds()


class Lock:
    """A lock the session holds: its name (the lock_id its holder was
    given), its items as Lock asked for them and its fencing token (what a
    move matches, failover.py), and its handle at the lockd in use (None
    once a move left it behind)."""

    __slots__ = ("name", "items", "token", "reentrant", "handle")

    def __init__(self, name, items, token, reentrant, handle):
        self.name, self.items, self.token, self.reentrant, self.handle = name, items, token, reentrant, handle


def renamed(held, name):
    """held, or a copy of it whose lock_id is name."""
    if held.lock_id == name:
        return held
    out = pb.HeldLock()
    out.CopyFrom(held)
    out.lock_id = name
    return out


def lost_or_gone(err):
    """Whether an Unlock's error leaves nothing to retry: the lease was lost
    (lockd released the lock all the same), the session ended, or lockd no
    longer knows the handle."""
    return isinstance(err, Lost) or err.reason == "REASON_UNKNOWN_LOCK"
