"""A small Python client of lockd, the lockstep lock service (lockstep.v1).

    from lockd_client import Client, Locked

    client = Client("127.0.0.1:7420", token="...")      # or grpc.ssl_channel_credentials(...)
    with client.session(ttl=10) as session:             # keeps itself alive
        lock = session.lock("invoice/42", timeout=5)    # blocks, at most 5 s
        try:
            ...                                         # the work the lock guards,
                                                        # checking session.lost(lock)
        finally:
            session.unlock(lock)

Seed 003's extras: lock(..., comment="...") names the unit of work in
deadlock cycles; a Lock chosen to break a cycle of waits raises Deadlock,
whose cycle lists the waits (process, waited id, holder, comment);
session.unlock_all() releases every lock of the session; an id ending in
"/*" ("orders/*") is a mask: every child of "orders", taken as "orders".
session.get_token() and other.set_token(token) are seed 003's getToken and
setToken: the other session joins this session's identity and holds its
locks (same handles and fencing tokens, nothing released); the locks are
released when the identity's last session leaves.

Errors are LockdError subclasses carrying the status code and the server's
LockError detail (reason, session, id, lost lock handles): Locked (TryLock
met a holder), Lost (the session lapsed or a lease was lost: stop the work),
Deadlock (this Lock broke a cycle of waits: release and retry the unit of
work), Refused (authentication, prefixes, another's session), Timeout (the
deadline passed while waiting), InvalidRequest, Unavailable.

The generated stubs are lockstep/v1/lockd_pb2*.py (lockd/scripts/generate).
Needs grpcio, grpcio-status and protobuf (lockd/python/requirements.txt).
"""

import threading
import time

import grpc
from google.protobuf import duration_pb2
from grpc_status import rpc_status

from lockstep.v1 import lockd_pb2 as pb
from lockstep.v1 import lockd_pb2_grpc

ACCESS = {
    "X": pb.ACCESS_EXCLUSIVE,
    "S": pb.ACCESS_SHARED,
    "IS": pb.ACCESS_INTENT_SHARED,
    "IX": pb.ACCESS_INTENT_EXCLUSIVE,
    "SIX": pb.ACCESS_SHARED_INTENT_EXCLUSIVE,
}


class LockdError(Exception):
    """An error lockd returned: code (grpc.StatusCode), reason (the
    LockError.Reason name, e.g. "REASON_LOCKED") and detail (the LockError,
    or None)."""

    def __init__(self, code, message, detail):
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message
        self.detail = detail
        self.reason = pb.LockError.Reason.Name(detail.reason) if detail else None


class Locked(LockdError):
    """TryLock met a holder (FAILED_PRECONDITION, REASON_LOCKED)."""


class Lost(LockdError):
    """The lock or the whole session was lost (ABORTED): stop the work."""


class Deadlock(LockdError):
    """This Lock was chosen to break a cycle of waits (ABORTED,
    REASON_DEADLOCK) and released what it took. cycle lists the waits, this
    one first: each a DeadlockMember (process, waits.id, held_by, comment).
    Release what the unit of work holds (Session.unlock_all) and retry it."""

    @property
    def cycle(self):
        return list(self.detail.cycle) if self.detail else []


class Refused(LockdError):
    """Unauthenticated, or not permitted (no prefix, another's session)."""


class Timeout(LockdError):
    """The call's deadline passed while it waited; nothing is held."""


class InvalidRequest(LockdError):
    """Bad input (INVALID_ARGUMENT) or an unknown session or lock."""


class Unavailable(LockdError):
    """The store or the server is unavailable, or shutting down."""


_BY_CODE = {
    grpc.StatusCode.ABORTED: Lost,
    grpc.StatusCode.UNAUTHENTICATED: Refused,
    grpc.StatusCode.PERMISSION_DENIED: Refused,
    grpc.StatusCode.DEADLINE_EXCEEDED: Timeout,
    grpc.StatusCode.INVALID_ARGUMENT: InvalidRequest,
    grpc.StatusCode.NOT_FOUND: InvalidRequest,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
}


def _error(err):
    """Converts a grpc.RpcError into the matching LockdError."""
    detail = None
    status = rpc_status.from_call(err)
    if status is not None:
        for any_ in status.details:
            if any_.Is(pb.LockError.DESCRIPTOR):
                detail = pb.LockError()
                any_.Unpack(detail)
    cls = _BY_CODE.get(err.code(), LockdError)
    if err.code() == grpc.StatusCode.FAILED_PRECONDITION and detail and detail.reason == pb.LockError.REASON_LOCKED:
        cls = Locked
    if err.code() == grpc.StatusCode.ABORTED and detail and detail.reason == pb.LockError.REASON_DEADLOCK:
        cls = Deadlock
    return cls(err.code(), err.details(), detail)


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


class Client:
    """A connection to one lockd. target is "host:port"; credentials, when
    given, are grpc channel credentials (TLS, with a client certificate for
    mTLS); token is a bearer token sent with every call."""

    def __init__(self, target, token=None, credentials=None):
        if credentials is not None:
            self._channel = grpc.secure_channel(target, credentials)
        else:
            self._channel = grpc.insecure_channel(target)
        self._stub = lockd_pb2_grpc.LockServiceStub(self._channel)
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()

    def call(self, method, request, timeout=None):
        try:
            return getattr(self._stub, method)(request, timeout=timeout, metadata=self._metadata)
        except grpc.RpcError as err:
            raise _error(err) from None

    def open_session(self, ttl=None, name=""):
        """Opens a session; ttl in seconds (None: the server's default)."""
        req = pb.OpenSessionRequest(name=name)
        if ttl is not None:
            req.ttl.CopyFrom(duration_pb2.Duration(seconds=int(ttl), nanos=int((ttl % 1) * 1e9)))
        res = self.call("OpenSession", req)
        return Session(self, res.session_id, res.ttl.ToTimedelta().total_seconds())

    def session(self, ttl=None, name=""):
        """A session that keeps itself alive until closed (a context manager)."""
        s = self.open_session(ttl, name)
        s.keep_alive_in_background()
        return s

    def list_sessions(self):
        """Every live session of this lockd (DescribeSessionResponse each):
        for a principal granted list_sessions; Refused otherwise."""
        return list(self.call("ListSessions", pb.ListSessionsRequest()).sessions)

    def close(self):
        self._channel.close()


class Session:
    """A lockd session: its locks are released and lost when it lapses."""

    def __init__(self, client, session_id, ttl):
        self.client, self.id, self.ttl = client, session_id, ttl
        self._stop = threading.Event()
        self._keeper = self._watcher = self._watch_call = None
        self._deadline = None
        self._lost = threading.Event()
        self._lost_reason = None
        self.lost_locks = set()
        # lock_id -> time.monotonic() after which that lock counts as lost
        # unless a KeepAlive answer gives it more time (valid_for).
        self._lock_deadline = {}
        self._mu = threading.Lock()

    def lock(self, ids, timeout=None, comment=""):
        """Blocks until the lock (an id, or a group of ids and (id, access)
        pairs; an id "a/b/*" is a mask) is held; timeout in seconds. comment
        names the unit of work in deadlock cycles. Returns the HeldLock: its
        lock_id to unlock, its fencing token. Raises Deadlock if chosen to
        break a cycle of waits."""
        req = pb.LockRequest(session_id=self.id, items=_items(ids), comment=comment)
        sent = time.monotonic()
        held = self.client.call("Lock", req, timeout=timeout).lock
        self._granted(held, sent)
        if self._deadline is not None and self._lock_deadline[held.lock_id] - time.monotonic() < self.ttl / 3:
            self._refresh()  # granted late in a long wait: ask again how long it stays valid
        return held

    def try_lock(self, ids, comment=""):
        """Takes the lock at once, or raises Locked."""
        sent = time.monotonic()
        held = self.client.call("TryLock", pb.LockRequest(session_id=self.id, items=_items(ids), comment=comment)).lock
        self._granted(held, sent)
        return held

    def unlock(self, lock):
        """Releases a HeldLock (or its lock_id). Raises Lost if its lease
        had been lost before: the work it guarded may not have been exclusive."""
        lock_id = lock if isinstance(lock, str) else lock.lock_id
        self.client.call("Unlock", pb.UnlockRequest(session_id=self.id, lock_id=lock_id))
        self._forget(lock_id)

    def unlock_all(self):
        """Releases every lock of the session (seed 003's unlockAll) and
        keeps the session open. Returns the lock_ids released."""
        ids = list(self.client.call("UnlockAll", pb.UnlockAllRequest(session_id=self.id)).lock_ids)
        for lock_id in ids:
            self._forget(lock_id)
        return ids

    def get_token(self):
        """The token of the session's identity (seed 003's getToken): a
        secret another session of this lockd passes to set_token."""
        return self.client.call("GetToken", pb.GetTokenRequest(session_id=self.id)).token

    def set_token(self, token):
        """Joins the identity token names (seed 003's setToken): this session
        then holds its locks (returned, as HeldLocks) and every lock it
        takes later. Raises InvalidRequest (REASON_INVALID_TOKEN: malformed;
        REASON_UNKNOWN_TOKEN: its sessions all ended), Refused
        (REASON_NOT_YOUR_TOKEN) or LockdError (REASON_OWN_TOKEN,
        REASON_HOLDS_LOCKS, REASON_OTHER_LOCKD); each changes nothing."""
        sent = time.monotonic()
        locks = list(self.client.call("SetToken", pb.SetTokenRequest(session_id=self.id, token=token)).locks)
        for held in locks:
            self._granted(held, sent)
        return locks

    def keep_alive(self):
        self.client.call("KeepAlive", pb.KeepAliveRequest(session_id=self.id))

    def describe(self):
        return self.client.call("DescribeSession", pb.DescribeSessionRequest(session_id=self.id))

    def watch(self):
        """Yields the session's events (SessionEvent): WATCHING, LOCK_LOST...,
        then EXPIRED or CLOSED."""
        try:
            for ev in self.client._stub.WatchSession(
                pb.WatchSessionRequest(session_id=self.id), metadata=self.client._metadata
            ):
                yield ev
        except grpc.RpcError as err:
            raise _error(err) from None

    def keep_alive_in_background(self):
        """Keeps the session alive and tells its holder when its locks must
        be taken as lost (lost(), lost_locks): a KeepAlive every third of
        the TTL, or within half the time the earliest lock has left (every
        tenth of the TTL after a failure), and the session's watch stream
        followed on a second thread. The session counts as lost when lockd
        says so (EXPIRED, CLOSED, or an answer saying the session expired),
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

        def keeper():
            wait = self.ttl / 3
            while True:
                self._check_locks()
                left = max(self._deadline - time.monotonic(), 0)
                if self._stop.wait(min(self._before_earliest_lock(wait), left)):
                    return
                if time.monotonic() >= self._deadline:
                    self._lose("no KeepAlive answered within the session's TTL")
                    return
                self._check_locks()
                sent = time.monotonic()
                timeout = max(min(self._deadline - sent, self._until_earliest_lock(self.ttl)), 0.01)
                try:
                    res = self.client.call("KeepAlive", pb.KeepAliveRequest(session_id=self.id), timeout=timeout)
                except Lost as err:
                    self._lose(f"lockd ended the session: {err}")
                    return
                except LockdError:
                    wait = self.ttl / 10
                    continue
                self._answered(sent, res)
                wait = self.ttl / 3

        self._watch_call = self.client._stub.WatchSession(
            pb.WatchSessionRequest(session_id=self.id), metadata=self.client._metadata)

        def watcher():
            try:
                for ev in self._watch_call:
                    if ev.kind == pb.SessionEvent.KIND_LOCK_LOST:
                        with self._mu:
                            self.lost_locks.update(ev.lock_ids)
                    elif ev.kind in (pb.SessionEvent.KIND_EXPIRED, pb.SessionEvent.KIND_CLOSED):
                        with self._mu:
                            self.lost_locks.update(ev.lock_ids)
                        self._lose(f"lockd says the session ended: {ev.reason}")
                        return
            except grpc.RpcError as err:
                if not self._stop.is_set():
                    self._lose(f"the watch stream broke: {err.code()}")
                return
            if not self._stop.is_set():
                self._lose("the watch stream ended")

        self._keeper = threading.Thread(target=keeper, daemon=True)
        self._watcher = threading.Thread(target=watcher, daemon=True)
        self._keeper.start()
        self._watcher.start()

    def _granted(self, held, sent):
        """Starts the deadline of a lock an answer to a call sent at sent
        returned: sent + its valid_for, at most the TTL."""
        with self._mu:
            self._lock_deadline[held.lock_id] = sent + min(self.ttl, held.valid_for.ToTimedelta().total_seconds())

    def _answered(self, sent, res):
        """Applies a KeepAlive answer to a call sent at sent: the session's
        deadline and each named lock's move on; an unnamed lock gets no
        more time."""
        self._deadline = max(self._deadline, sent + self.ttl)
        with self._mu:
            for lock_id, v in res.valid_for.items():
                if lock_id in self._lock_deadline:
                    d = sent + min(self.ttl, v.ToTimedelta().total_seconds())
                    self._lock_deadline[lock_id] = max(self._lock_deadline[lock_id], d)

    def _refresh(self):
        sent = time.monotonic()
        try:
            res = self.client.call("KeepAlive", pb.KeepAliveRequest(session_id=self.id))
        except LockdError:
            return
        self._answered(sent, res)

    def _until_earliest_lock(self, d):
        now = time.monotonic()
        with self._mu:
            for deadline in self._lock_deadline.values():
                if deadline > now:
                    d = min(d, deadline - now)
        return d

    def _before_earliest_lock(self, wait):
        now = time.monotonic()
        with self._mu:
            for deadline in self._lock_deadline.values():
                if deadline > now:
                    wait = min(wait, max((deadline - now) / 2, 0.01))
        return wait

    def _check_locks(self):
        now = time.monotonic()
        with self._mu:
            for lock_id, deadline in self._lock_deadline.items():
                if now >= deadline:
                    self.lost_locks.add(lock_id)

    def _forget(self, lock_id):
        with self._mu:
            self._lock_deadline.pop(lock_id, None)

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
            self._check_locks()
        return (lock if isinstance(lock, str) else lock.lock_id) in self.lost_locks

    def lost_reason(self):
        """Why the session counts as lost, or None."""
        return self._lost_reason

    def _lose(self, reason):
        """Marks the session lost, and with it every lock it holds: whichever
        thread notices first (the keeper's deadline, lost(), the watcher),
        lost_locks names them all before lost() can answer True."""
        with self._mu:
            self.lost_locks.update(self._lock_deadline)
            if not self._lost.is_set():
                self._lost_reason = reason
                self._lost.set()

    def close(self):
        """Releases every lock of the session and ends it."""
        self._stop.set()
        if self._keeper is not None:
            self._keeper.join()
        try:
            self.client.call("CloseSession", pb.CloseSessionRequest(session_id=self.id))
        finally:
            if self._watch_call is not None:
                self._watch_call.cancel()
            if self._watcher is not None:
                self._watcher.join()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
