"""A session that moves hands a granted lock out only with a peer token
naming it, and a move whose token names only released locks goes on with
none (handout.py, failover.py; no lockd needed: a scripted client)."""

import threading
import time

import grpc
import pytest

from lockstep.lockd import InvalidRequest, Unavailable, failover
from lockstep.lockd.locks import Lock
from lockstep.lockd.session import Session
from lockstep.v1 import lockd_pb2 as pb
from silent_watch import SilentWatch

pytestmark = pytest.mark.no_lockd

TTL = 3.0


class Scripted:
    """A Client of two lockds, old:1 and new:2, that records every call and
    answers it by handlers[(method, endpoint)] (a function of the request),
    or else as a healthy lockd would."""

    endpoints = ["old:1", "new:2"]

    def __init__(self):
        self.calls = []
        self.handlers = {}

    def call(self, method, request, timeout=None, endpoint=None):
        self.calls.append((method, endpoint))
        h = self.handlers.get((method, endpoint))
        if h is not None:
            return h(request)
        if method == "OpenSession":
            res = pb.OpenSessionResponse(session_id="s-" + endpoint)
            res.ttl.CopyFrom(failover.duration(TTL))
            return res
        if method == "GetToken":
            return pb.GetTokenResponse(token="lkt2." + endpoint)
        if method == "SetToken":
            return pb.SetTokenResponse()
        if method == "KeepAlive":
            return pb.KeepAliveResponse()
        if method == "Unlock":
            return pb.UnlockResponse()
        if method == "CloseSession":
            return pb.CloseSessionResponse()
        raise AssertionError(f"unexpected call {method} at {endpoint}")

    def watch_call(self, session_id, endpoint):
        return SilentWatch()


def moving_session(client):
    """A session at old:1 that moves: a peer token, a deadline (as kept
    alive in the background, without its keeper), several lockds."""
    s = Session(client, "s-old:1", TTL, "old:1", peer="lkt2.old:1")
    s._deadline = time.monotonic() + TTL
    return s


def granted(lock_id, id_, token):
    held = pb.HeldLock(lock_id=lock_id, items=[pb.LockItem(id=id_)], token=token)
    held.valid_for.FromSeconds(2)
    return held


def test_a_lock_whose_token_the_lockd_does_not_give_is_given_back():
    # The old lockd grants x, then fails before answering GetToken: no move
    # could carry x, so lock() gives it back and fails; the session moves.
    client = Scripted()
    client.handlers[("Lock", "old:1")] = lambda req: pb.LockResponse(lock=granted("h1", "x", 5))

    def cut(req):
        raise Unavailable(grpc.StatusCode.UNAVAILABLE, "cut off", None)

    client.handlers[("GetToken", "old:1")] = cut
    s = moving_session(client)
    try:
        try:
            s.lock("x")
            raise AssertionError("lock() handed out a lock no move could carry")
        except Unavailable as err:
            assert "gave no peer token naming it" in str(err), err
            assert "given back there" in str(err), err
        assert ("Unlock", "old:1") in client.calls, "x was not given back at the lockd that granted it"
        assert s.endpoint == "new:2" and not s.lost(), s.lost_reason()
        assert s.lost_locks == set(), "nothing the caller held was lost"
    finally:
        s.close()


def test_a_lock_answered_while_a_move_is_under_way_is_given_back():
    # The session's move off old:1 has begun (its OpenSession at new:2
    # waits) when old:1 answers a Lock: the move's token, chosen when it
    # began, does not name it. lock() waits for the move, gives the lock
    # back at old:1 and fails; nothing is counted held, so nothing is lost.
    client = Scripted()
    s = moving_session(client)
    old = s._conn
    gate = threading.Event()
    mover = threading.Thread(target=failover.move, args=(s, old, "keep-alive unanswered"))

    opening = threading.Event()

    def open_new(req):
        opening.set()
        gate.wait(5)
        res = pb.OpenSessionResponse(session_id="s-new:2")
        res.ttl.CopyFrom(failover.duration(TTL))
        return res

    def lock_old(req):
        mover.start()
        opening.wait(5)  # the move is under way
        threading.Timer(0.2, gate.set).start()  # the move goes on once the client has the answer
        return pb.LockResponse(lock=granted("h1", "x", 5))

    client.handlers[("OpenSession", "new:2")] = open_new
    client.handlers[("Lock", "old:1")] = lock_old
    try:
        try:
            s.lock("x")
            raise AssertionError("lock() handed out a lock the move under way could not carry")
        except Unavailable as err:
            assert "moved off lockd old:1 while it granted x" in str(err), err
        mover.join(5)
        assert ("Unlock", "old:1") in client.calls, "x was not given back at old:1"
        assert s.endpoint == "new:2" and not s.lost(), s.lost_reason()
        assert s.lost_locks == set(), "nothing the caller held was lost"
    finally:
        gate.set()
        s.close()


def test_a_move_whose_token_names_only_released_locks_goes_on_with_none():
    # The token names only x, which the old lockd released (an Unlock it
    # answered as the move began): the new lockd refuses it (UNKNOWN_TOKEN).
    # The session moves with nothing adopted, reports x lost, and lives on.
    client = Scripted()

    def refuse(req):
        detail = pb.LockError(reason=pb.LockError.REASON_UNKNOWN_TOKEN)
        raise InvalidRequest(grpc.StatusCode.NOT_FOUND, "no lock the token names is still held", detail)

    client.handlers[("SetToken", "new:2")] = refuse
    s = moving_session(client)
    s._locks["h1"] = Lock("h1", [pb.LockItem(id="x")], 5, False, "h1")
    s._names["h1"] = "h1"
    s._times.granted("h1", time.monotonic(), 2.0)
    moves = []
    s._on_move = moves.append
    try:
        failover.move(s, s._conn, "keep-alive unanswered")
        assert not s.lost(), f"the refusal ended the session: {s.lost_reason()}"
        assert s.endpoint == "new:2"
        assert s.lost("h1"), "x, not carried, is reported lost"
        assert [(m.to_endpoint, m.kept, m.lost) for m in moves] == [("new:2", 0, 1)]
    finally:
        s.close()
