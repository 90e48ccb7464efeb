"""Fail-over: a session given several lockds of one cluster (the same store
and peer key) moves, with its locks, to another when the one it uses fails
(docs/algorithms.md, section 8.8; the Go client's failover.go and move.go
follow the same rules).

The session keeps the peer token of its identity (GetToken: the identity's
locks, MACed with the cluster's peer key), read again after every Lock,
Unlock, UnlockAll and SetToken. When a call or KeepAlive goes unanswered
(movable) or the watch stream breaks, move() opens a session on the next
lockd, closes the session an earlier move left there, adopts the token
there (SetToken), reads the new identity's token, and only then switches:
each lock the answer names whose own deadline had not passed when the
answer came keeps its name and fencing token under a new handle; any other
is lost, and what was adopted of it is given back. A move not done before
the session's deadline ends the session, as a failed lockd did without
fail-over.
"""

import collections
import time

import grpc
from google.protobuf import duration_pb2

from lockstep.lockd.errors import LockdError, Lost, Unavailable
from lockstep.v1 import lockd_pb2 as pb

PEER_TOKEN_PREFIX = "lkt2."

Move = collections.namedtuple("Move", "from_endpoint to_endpoint began ended kept lost error")
Move.__doc__ = """One move of a session to another lockd, as on_move is told of it:
the lockds left and reached (to_endpoint None when the move failed), when
the session noticed its lockd had failed and when the move finished or
failed (time.monotonic()), the locks kept and lost, and why a failed move
lost the session (None on success)."""


class Conn:
    """One session on one lockd: a Session uses one at a time, and a move
    opens the next. keeper follows it once it is kept alive."""

    def __init__(self, endpoint, session_id):
        self.endpoint, self.id = endpoint, session_id
        self.keeper = None


class _Closing(Exception):
    """A move that close() overtook."""


def duration(seconds):
    """seconds (a number) as a protobuf Duration."""
    return duration_pb2.Duration(seconds=int(seconds), nanos=int(round((seconds % 1) * 1e9)))


def movable(err, timeout=None):
    """Whether err (a LockdError) means the lockd could not answer: lockd's
    own UNAVAILABLE (shutting down, its store unreachable), or a transport
    failure with no LockError from lockd — a deadline, unless it was the
    caller's own timeout, a connection reset (UNKNOWN, CANCELLED). A refusal
    lockd answered is not one."""
    if err.code == grpc.StatusCode.UNAVAILABLE:
        return True
    if err.detail is not None:
        return False
    if err.code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return timeout is None
    return err.code in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.CANCELLED)


def read_peer(client, endpoint, session_id, timeout):
    """The peer token of the identity of session_id at endpoint. A lockd
    without a peer key hands out tokens no other lockd accepts: a session
    there could never move on, so it is refused with ValueError."""
    tok = client.call("GetToken", pb.GetTokenRequest(session_id=session_id), timeout=timeout, endpoint=endpoint).token
    if not tok.startswith(PEER_TOKEN_PREFIX):
        raise ValueError(
            f"several endpoints given, but the lockd at {endpoint} has no peer key, so no other lockd could take "
            "a session's locks over: start every lockd of the cluster with the same --peer-key-file, "
            "or give the Client one endpoint"
        )
    return tok


def open_first(client, req):
    """Opens a session (OpenSessionRequest req) on the first endpoint that
    answers, around the list twice, and reads its identity's first peer
    token there; returns (endpoint, OpenSessionResponse, token). A lockd
    that cannot answer is passed over (a connection it closed fails the call
    sent on it, and the next call opens a fresh one); a refusal lockd
    answered is raised at once, since every lockd of the cluster would
    refuse the same. A session opened where the token cannot be read is
    closed (best effort). An OpenSession whose answer was lost leaves a
    session that holds nothing and lapses after its TTL."""
    errs = []
    n = len(client.endpoints)
    for attempt in range(2 * n):
        endpoint = client.endpoints[attempt % n]
        try:
            res = client.call("OpenSession", req, endpoint=endpoint)
        except LockdError as err:
            if not movable(err):
                raise
            errs.append(f"{endpoint}: {err}")
            continue
        ttl = res.ttl.ToTimedelta().total_seconds()
        try:
            return endpoint, res, read_peer(client, endpoint, res.session_id, max(ttl / 3, 0.1))
        except (LockdError, ValueError) as err:
            try:
                client.call("CloseSession", pb.CloseSessionRequest(session_id=res.session_id), timeout=max(ttl / 3, 0.1), endpoint=endpoint)
            except LockdError:
                pass
            if isinstance(err, ValueError) or not movable(err):
                raise
            errs.append(f"{endpoint}: {err}")
    raise Unavailable(
        grpc.StatusCode.UNAVAILABLE, f"no lockd opened the session (each of {client.endpoints} tried twice): " + "; ".join(errs), None
    )


def refresh_peer(s):
    """Reads the identity's peer token again. A token whose GetToken was
    sent after a Lock was answered names that lock, so the token of the
    latest send is kept. A failure keeps the older token: a lock it does not
    name is lost at a move, never claimed."""
    if s._peer is None:
        return
    with s._mu:
        c = s._conn
        s._peer_seq += 1
        seq = s._peer_seq
    try:
        tok = s.client.call("GetToken", pb.GetTokenRequest(session_id=c.id), timeout=max(s.ttl / 3, 0.01), endpoint=c.endpoint).token
    except LockdError:
        return
    with s._mu:
        if s._conn is c and seq > s._peer_at:
            s._peer, s._peer_at = tok, seq


def move(s, old, cause):
    """Moves s off old, which failed with cause, to another lockd (the next
    in the client's order after old's, old's own last) before the session's
    deadline; otherwise the session is lost with its locks. Moves are one at
    a time; a move that finds the session already off old does nothing."""
    began = time.monotonic()
    with s._move_mu:
        with s._mu:
            if s._conn is not old or s._lost.is_set() or s._closing.is_set():
                return
            deadline, peer, held = s._deadline, s._peer, len(s._locks)
            s._moving_off = old  # a Lock answered at old from now on is not handed out (handout.py)
        try:
            _move_off(s, old, cause, began, deadline, peer, held)
        finally:
            with s._mu:
                s._moving_off = None


def _move_off(s, old, cause, began, deadline, peer, held):
    """move's steps once it has begun: tries the other lockds in turn until
    one takes the session, the session's deadline passes, or a lockd
    refuses it."""
    if old.keeper is not None:
        old.keeper.give_up()
    endpoints = s.client.endpoints
    at = endpoints.index(old.endpoint) if old.endpoint in endpoints else 0
    last, refused, attempt = cause, False, 0
    while time.monotonic() < deadline and not s._closing.is_set():
        attempt += 1
        endpoint = endpoints[(at + attempt) % len(endpoints)]
        try:
            kept, lost = _move_to(s, endpoint, peer, deadline)
            s._moved(Move(old.endpoint, endpoint, began, time.monotonic(), kept, lost, None))
            return
        except _Closing:
            return
        except ValueError as err:  # no peer key there
            last, refused = f"lockd {endpoint}: {err}", True
            break
        except LockdError as err:
            last = f"lockd {endpoint}: {err}"
            # LOCKED: that lockd still holds the locks for an old session
            # of this client that could not be closed; it accepts them
            # once that session lapses.
            if not movable(err) and err.reason != "REASON_LOCKED":
                refused = True  # another lockd would refuse the token too
                break
        if attempt % len(endpoints) == 0:  # every lockd failed: again, a little later
            s._closing.wait(min(max(s.ttl / 20, 0.01), max(deadline - time.monotonic(), 0)))
    if s._closing.is_set():
        return
    if refused:
        why = f"another lockd refused to take the session and its locks over ({last}); no lockd of the cluster would accept them"
    else:
        why = f"the session could not move to another lockd before its TTL ran out (last: {last})"
    reason = f"session {old.id}: lockd {old.endpoint} failed ({cause}), and {why}"
    s._lose(reason)
    s._moved(Move(old.endpoint, None, began, time.monotonic(), 0, held, reason))


def drained(s, c, reason):
    """Moves s off c, whose lockd drains the session (it is shutting down),
    then closes the session left there, which leaves the locks to the lockd
    the session moved to and lets the draining lockd finish early. True
    when the session is off c (moved, or lost because no lockd took it)."""
    move(s, c, f"lockd drains the session: {reason}")
    if s._conn is c:
        return False
    if not s._lost.is_set():
        _close_left(s, c, max(s.ttl / 3, 1))
    return True


def _move_to(s, endpoint, peer, deadline):
    """Opens a session on the lockd at endpoint, adopts peer there when the
    session holds locks, reads the new identity's peer token, and switches
    the session to it (_install). What it opened is closed again if it
    fails, and returns (locks kept, locks lost). The token is read before
    the switch, as a step of the move: a session switched without one would
    carry nothing at its next move."""

    def left():
        return max(deadline - time.monotonic(), 0.001)

    client = s.client
    req = pb.OpenSessionRequest(name=s.name)
    req.ttl.CopyFrom(duration(s.ttl))
    sent = time.monotonic()
    res = client.call("OpenSession", req, timeout=left(), endpoint=endpoint)
    c = Conn(endpoint, res.session_id)
    ttl = res.ttl.ToTimedelta().total_seconds()
    if abs(ttl - s.ttl) > 0.001:
        _close_on(s, c)
        raise Unavailable(
            grpc.StatusCode.UNAVAILABLE,
            f"lockd {endpoint} granted a session TTL of {ttl}s, not the session's {s.ttl}s: give the lockds of a cluster the same TTL bounds",
            None,
        )
    _close_left(s, c, left())
    held, set_sent, got = [], sent, sent
    if peer is not None and s._holds():
        set_sent = time.monotonic()
        try:
            held = list(client.call("SetToken", pb.SetTokenRequest(session_id=c.id, token=peer), timeout=left(), endpoint=endpoint).locks)
        except LockdError as err:
            if err.reason != "REASON_UNKNOWN_TOKEN":
                _close_on(s, c)
                raise
            # Nothing the token names is held any more (unlocked, here or
            # behind the client's back, or its identity ended): the move
            # adopts nothing, and every lock the session counts held is
            # lost by _install's rule, as when an answer names none of
            # them. The session lives on at c; every lockd would say the
            # same, and keeping no lock claims nothing.
        got = time.monotonic()
    to, counted = _assign(s, c, held, left)
    try:
        nxt = read_peer(client, endpoint, c.id, left())
    except (LockdError, ValueError):
        _close_on(s, c)
        raise
    counts = _install(s, c, sent, set_sent, got, held, to, counted, nxt)
    if counts is None:
        _close_on(s, c)
        raise _Closing()
    return counts


def _close_on(s, c):
    """Closes c's session, one a move opened and does not keep. If its lockd
    does not answer, the session is noted as left there: it may hold the
    locks a SetToken adopted, and that lockd refuses to adopt them again
    until it is closed or lapses."""
    try:
        s.client.call("CloseSession", pb.CloseSessionRequest(session_id=c.id), timeout=max(s.ttl / 3, 1), endpoint=c.endpoint)
    except Lost:
        pass  # ended already
    except LockdError:
        with s._mu:
            s._left[c.endpoint] = c.id


def _close_left(s, c, timeout):
    """Closes the session an earlier move left at c's lockd, if any: that
    lockd holds the old identity's locks there, shared with the lockd the
    session moved to, and a lockd refuses to adopt a lock it holds itself
    (LOCKED). The old session leaves them (section 8.7): nothing is
    released."""
    with s._mu:
        sid = s._left.get(c.endpoint)
    if sid is None:
        return
    try:
        s.client.call("CloseSession", pb.CloseSessionRequest(session_id=sid), timeout=timeout, endpoint=c.endpoint)
    except Lost:
        pass
    except LockdError:
        return
    with s._mu:
        s._left.pop(c.endpoint, None)


def _key(items, token):
    """A lock as a move compares it: its items in the order Lock asked for
    them, and its fencing token."""
    return tuple((it.id, it.access) for it in items), token


def _assign(s, c, held, left):
    """Gives each lock of the session its HeldLock at c, where the adopted
    locks held arrived: the peer token names each acquisition once, so of
    the locks with one lock's items and fencing token, one takes the adopted
    handle (the one that took it, or else one granted by reentrancy), and
    each other one is counted again with a TryLock, which lockd answers
    without a store request (reentrant, same token). A lock whose TryLock
    did not only count gets nothing, and what it took is given back. Returns
    (name → HeldLock, the handles TryLock gave)."""
    adopted = {_key(h.items, h.token): h for h in held}
    by_key = {}
    with s._mu:
        for lk in s._locks.values():
            k = _key(lk.items, lk.token)
            if k in adopted:
                by_key.setdefault(k, []).append(lk)
    to, counted = {}, set()
    for k, locks in by_key.items():
        locks.sort(key=lambda lk: (lk.reentrant, lk.handle or ""))  # the one that took it first
        to[locks[0].name] = adopted[k]
        for lk in locks[1:]:
            try:
                h = s.client.call("TryLock", pb.LockRequest(session_id=c.id, items=lk.items), timeout=left(), endpoint=c.endpoint).lock
            except LockdError:
                continue
            if not h.reentrant or h.token != lk.token:
                try:
                    s.client.call("Unlock", pb.UnlockRequest(session_id=c.id, lock_id=h.lock_id), timeout=left(), endpoint=c.endpoint)
                except LockdError:
                    pass
                continue
            to[lk.name] = h
            counted.add(h.lock_id)
    return to, counted


def _install(s, c, sent, set_sent, got, held, to, counted, peer):
    """Switches s to c: each lock takes the HeldLock _assign gave it, with
    the deadline set_sent + the valid_for c's lockd gave, unless its own
    deadline passed before the answer came (got): then the hold may have had
    a gap (a late handover), so it is lost. A lock given nothing is lost; an
    adopted lock no lock took is released at c, as is a counted handle of a
    lock lost. peer, the identity's token read at c, replaces the session's.
    Returns False (and changes nothing) when the session ended or closes."""
    used, locks, names, lost, release = set(), {}, {}, [], []
    with s._mu:
        if s._lost.is_set() or s._closing.is_set():
            return None
        for name, lk in s._locks.items():
            h = to.get(name)
            until = s._times.deadline(name)
            # A lock already counted lost (its holder was told so) is not
            # kept, whatever its deadline says now.
            if h is not None and h.lock_id not in used and until is not None and got <= until and not s._times.is_lost(name):
                used.add(h.lock_id)
                lk.handle, locks[name], names[h.lock_id] = h.lock_id, lk, name
                s._times.granted(name, set_sent, h.valid_for.ToTimedelta().total_seconds())
            else:
                if h is not None and h.lock_id in counted:
                    release.append(h.lock_id)
                lk.handle = None
                lost.append(name)
        s._left[s._conn.endpoint] = s._conn.id
        s._conn, s._locks, s._names = c, locks, names
        s._deadline = sent + s.ttl
        s.moves += 1
        s._peer, s._peer_at = peer, s._peer_seq  # a GetToken still in flight at the old lockd must not overwrite it
        s._left_behind.update(lost)
        s._times.lose(lost)
        for name in lost:
            s._times.forget(name)
        s._start_keeper(c)  # under s._mu, the session not closing: close() stops it
    release += [h.lock_id for h in held if h.lock_id not in used]  # adopted too late, or named by no lock
    for handle in release:
        try:
            s.client.call("Unlock", pb.UnlockRequest(session_id=c.id, lock_id=handle), timeout=max(s.ttl / 3, 0.01), endpoint=c.endpoint)
        except LockdError:
            pass
    if release:
        refresh_peer(s)  # the token read at c names what was just released
    return len(locks), len(lost)
