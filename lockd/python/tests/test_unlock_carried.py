"""Unlock of a lock that a move carried to another lockd while the Unlock
was in flight at the old one (no lockd needed: a scripted client)."""

import grpc

from lockstep.lockd import Lost
from lockstep.lockd import failover
from lockstep.lockd.locks import Lock
from lockstep.lockd.session import Session
from lockstep.v1 import lockd_pb2 as pb
from silent_watch import SilentWatch


class Scripted:
    """A Client that records every call; Unlock at the old lockd moves the
    session (as a move on the keeper's thread would, while the call waits)
    and then answers that the old session expired, as a lockd paused past
    the session's TTL does once resumed."""

    endpoints = ["old:1", "new:2"]

    def __init__(self):
        self.calls = []
        self.session = None

    def call(self, method, request, timeout=None, endpoint=None):
        self.calls.append((method, endpoint, getattr(request, "lock_id", None)))
        if method == "Unlock" and endpoint == "old:1":
            s = self.session
            with s._mu:  # what _install does for a lock the move kept
                lk = s._locks["h-old"]
                lk.handle = "h-new"
                s._names = {"h-new": "h-old"}
                s._conn = failover.Conn("new:2", "s-new")
            detail = pb.LockError(reason=pb.LockError.REASON_SESSION_EXPIRED)
            raise Lost(grpc.StatusCode.NOT_FOUND, "session s-old expired", detail)
        if method == "KeepAlive":
            return pb.KeepAliveResponse()
        if method == "GetToken":
            return pb.GetTokenResponse(token="lkt2.z")
        return pb.UnlockResponse()

    def watch_call(self, session_id, endpoint):
        return SilentWatch()


def test_unlock_releases_at_the_new_lockd_a_lock_the_move_carried_while_the_old_said_its_session_expired():
    client = Scripted()
    s = Session(client, "s-old", 2.0, "old:1", peer="lkt2.x")
    client.session = s
    s._locks["h-old"] = Lock("h-old", [pb.LockItem(id="x")], 7, False, "h-old")
    s._names["h-old"] = "h-old"
    s.unlock("h-old")  # not Lost: the move kept the lock, and the new lockd released it
    assert ("Unlock", "new:2", "h-new") in client.calls, client.calls
    assert "h-old" not in s._locks, "still counted held at the new lockd"


def test_a_move_does_not_keep_a_lock_already_counted_lost():
    # Its holder was told it is lost (here: lockd said LOCK_LOST just
    # before the move); the adoption may still name it, with time ahead by
    # the old count, but keeping it would hold a lock nobody unlocks.
    import time

    client = Scripted()
    s = Session(client, "s-old", 2.0, "old:1", peer="lkt2.x")
    s._locks["h-old"] = Lock("h-old", [pb.LockItem(id="x")], 7, False, "h-old")
    s._names["h-old"] = "h-old"
    now = time.monotonic()
    s._times.granted("h-old", now, 2.0)
    s._times.lose(["h-old"])
    s._deadline = now + 2.0
    held = pb.HeldLock(lock_id="h-new", items=[pb.LockItem(id="x")], token=7)
    held.valid_for.FromSeconds(2)
    c = failover.Conn("new:2", "s-new")
    try:
        kept, lost = failover._install(s, c, now, now, now, [held], {"h-old": held}, set(), "lkt2.y")
    finally:
        for k in s._keepers:
            k.stop()
    assert (kept, lost) == (0, 1)
    assert ("Unlock", "new:2", "h-new") in client.calls, "what was adopted of it is given back"
