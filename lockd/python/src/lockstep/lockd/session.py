"""Session: one lockd session, its locks, and when they count as lost."""

import threading
import time

import grpc

from lockstep.lockd import background
from lockstep.lockd.errors import LockdError, Lost, from_rpc_error
from lockstep.lockd.valid import LockTimes
from lockstep.v1 import lockd_pb2 as pb

ACCESS = {
    "X": pb.ACCESS_EXCLUSIVE,
    "S": pb.ACCESS_SHARED,
    "IS": pb.ACCESS_INTENT_SHARED,
    "IX": pb.ACCESS_INTENT_EXCLUSIVE,
    "SIX": pb.ACCESS_SHARED_INTENT_EXCLUSIVE,
}


def _items(ids):
    """"a/b" or ["a/b", ("a/c", "S")] → LockItems."""
    if isinstance(ids, str):
        ids = [ids]
    items = []
    for it in ids:
        id_, access = (it, "X") if isinstance(it, str) else it
        if access not in ACCESS:
            raise ValueError(f"access {access!r}: want one of {', '.join(ACCESS)}")
        items.append(pb.LockItem(id=id_, access=ACCESS[access]))
    return items


def _seconds(duration):
    return duration.ToTimedelta().total_seconds()


class Session:
    """A lockd session: its locks are released and lost when it lapses. It
    lives on the lockd at endpoint (default: the client's first), and every
    call naming it goes there. Safe for concurrent use by several threads."""

    def __init__(self, client, session_id, ttl, endpoint=None):
        self.client, self.id, self.ttl = client, session_id, ttl
        self.endpoint = client.endpoints[0] if endpoint is None else endpoint
        self._times = LockTimes(ttl)
        self._keeper = None
        # The session's deadline (time.monotonic()) once kept alive in the
        # background: the send of the last answered KeepAlive plus the TTL.
        self._deadline = None
        self._lost = threading.Event()
        self._lost_reason = None
        self._mu = threading.Lock()

    def _call(self, method, request, timeout=None):
        """Calls method for this session; an answer saying the session
        ended at lockd, or that lockd does not know it, loses the session
        and its locks before it is raised."""
        try:
            return self.client.call(method, request, timeout=timeout, endpoint=self.endpoint)
        except Lost as err:
            self._ended(err)
            raise

    def _ended(self, err):
        """Loses the session if err (a Lost) says lockd ended it or does not
        know it; a lost lease (REASON_LOST) is that lock's alone."""
        if err.reason == "REASON_SESSION_EXPIRED":
            self._lose(f"lockd ended the session: {err}", err.detail.lost_lock_ids)
        elif err.reason == "REASON_UNKNOWN_SESSION":
            self._lose(f"lockd no longer knows the session (restarted since it was opened?): {err}")

    def lock(self, ids, timeout=None, comment=""):
        """Blocks until the lock (an id, or a group of ids and (id, access)
        pairs; an id "a/b/*" is a mask) is held; timeout in seconds. comment
        names the unit of work in deadlock cycles. Returns the HeldLock: its
        lock_id to unlock, its fencing token. Raises Deadlock if chosen to
        break a cycle of waits."""
        req = pb.LockRequest(session_id=self.id, items=_items(ids), comment=comment)
        sent = time.monotonic()
        held = self._call("Lock", req, timeout=timeout).lock
        self._granted(held, sent)
        if self._deadline is not None and self._times.deadline(held.lock_id) - time.monotonic() < self.ttl / 3:
            self._refresh()  # granted late in a long wait: ask again how long it stays valid
        return held

    def try_lock(self, ids, comment=""):
        """Takes the lock at once, or raises Locked."""
        sent = time.monotonic()
        held = self._call("TryLock", pb.LockRequest(session_id=self.id, items=_items(ids), comment=comment)).lock
        self._granted(held, sent)
        return held

    def unlock(self, lock):
        """Releases a HeldLock (or its lock_id). Raises Lost if its lease
        had been lost before: the work it guarded may not have been exclusive."""
        lock_id = lock if isinstance(lock, str) else lock.lock_id
        self._call("Unlock", pb.UnlockRequest(session_id=self.id, lock_id=lock_id))
        self._times.forget(lock_id)

    def unlock_all(self):
        """Releases every lock of the session (seed 003's unlockAll) and
        keeps the session open. Returns the lock_ids released."""
        ids = list(self._call("UnlockAll", pb.UnlockAllRequest(session_id=self.id)).lock_ids)
        for lock_id in ids:
            self._times.forget(lock_id)
        return ids

    def get_token(self):
        """The token of the session's identity (seed 003's getToken): a
        secret another session of this lockd passes to set_token."""
        return self._call("GetToken", pb.GetTokenRequest(session_id=self.id)).token

    def set_token(self, token):
        """Joins the identity token names (seed 003's setToken): this session
        then holds its locks (returned, as HeldLocks) and every lock it
        takes later. Raises InvalidRequest (REASON_INVALID_TOKEN: malformed;
        REASON_UNKNOWN_TOKEN: its sessions all ended), Refused
        (REASON_NOT_YOUR_TOKEN) or LockdError (REASON_OWN_TOKEN,
        REASON_HOLDS_LOCKS, REASON_OTHER_LOCKD); each changes nothing."""
        sent = time.monotonic()
        locks = list(self._call("SetToken", pb.SetTokenRequest(session_id=self.id, token=token)).locks)
        for held in locks:
            self._granted(held, sent)
        return locks

    def keep_alive(self):
        self._call("KeepAlive", pb.KeepAliveRequest(session_id=self.id))

    def describe(self):
        return self._call("DescribeSession", pb.DescribeSessionRequest(session_id=self.id))

    def watch(self):
        """Yields the session's events (SessionEvent): WATCHING, LOCK_LOST...,
        then EXPIRED or CLOSED."""
        try:
            for ev in self.client.watch_call(self.id, self.endpoint):
                yield ev
        except grpc.RpcError as err:
            raise from_rpc_error(err) from None

    def keep_alive_in_background(self):
        """Keeps the session alive and tells its holder when its locks must
        be taken as lost (lost(), lost_locks): a KeepAlive every third of
        the TTL, or within half the time the earliest lock has left (timed
        again as each lock is added; every tenth of the TTL after a
        failure), and the session's watch stream
        followed on a second thread. The session counts as lost when lockd
        says so (EXPIRED, CLOSED, or an answer saying the session expired
        or that lockd does not know it, as after a restart),
        when the watch stream breaks (the client could no longer be told of
        a loss in time), or when no KeepAlive was answered for the TTL
        counted from its send (lockd counts from its receipt, which is
        later). A lock counts as lost on LOCK_LOST, and when its own time
        runs out: lockd says, in the answer granting it and in each
        KeepAlive answer, how long it is certain to stay valid even if lockd
        renews nothing more; that counts from the send of the call, and a
        lock an answer leaves out gets no more time. When the session counts
        as lost, so does every lock it holds, and lost_locks names them."""
        self._deadline = time.monotonic() + self.ttl
        self._keeper = background.Keeper(self)
        self._keeper.start()

    def _granted(self, held, sent):
        """Starts the deadline of a lock an answer to a call sent at sent
        returned, and wakes the keeper to time its KeepAlives by it."""
        self._times.granted(held.lock_id, sent, _seconds(held.valid_for))
        if self._keeper is not None:
            self._keeper.added()

    def _answered(self, sent, res):
        """Applies a KeepAlive answer to a call sent at sent: the session's
        deadline and each named lock's move on (valid.py)."""
        self._deadline = max(self._deadline, sent + self.ttl)
        self._times.answered(sent, {k: _seconds(v) for k, v in res.valid_for.items()})

    def _refresh(self):
        sent = time.monotonic()
        try:
            res = self._call("KeepAlive", pb.KeepAliveRequest(session_id=self.id))
        except LockdError:
            return
        self._answered(sent, res)

    @property
    def lost_locks(self):
        """The lock_ids of the locks lost so far (a copy)."""
        return self._times.lost()

    def lost(self, lock=None):
        """True once the session's locks must be taken as lost (see
        keep_alive_in_background), or, given a HeldLock or lock_id, once
        that lock's lease was. Check it before each step of the work a lock
        guards, and stop when it is true."""
        if self._deadline is not None and not self._lost.is_set() and time.monotonic() >= self._deadline:
            self._lose("no KeepAlive answered within the session's TTL")
        if self._lost.is_set():
            return True
        if lock is None:
            return False
        if self._deadline is not None:
            self._times.check()
        return self._times.is_lost(lock if isinstance(lock, str) else lock.lock_id)

    def lost_reason(self):
        """Why the session counts as lost, or None."""
        return self._lost_reason

    def _lose(self, reason, lock_ids=()):
        """Marks the session lost, and with it every lock it holds (and
        lock_ids): whichever thread notices first (the keeper's deadline,
        lost(), the watcher), lost_locks names them all before lost() can
        answer True."""
        with self._mu:
            self._times.lose(lock_ids)
            self._times.lose()
            if not self._lost.is_set():
                self._lost_reason = reason
                self._lost.set()

    def close(self):
        """Releases every lock of the session and ends it."""
        if self._keeper is not None:
            self._keeper.stop_keep_alives()
        try:
            self._call("CloseSession", pb.CloseSessionRequest(session_id=self.id))
        finally:
            if self._keeper is not None:
                self._keeper.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
