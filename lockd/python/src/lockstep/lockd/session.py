"""Session: one lockd session, its locks, and when they count as lost."""

import threading
import time

import grpc

from lockstep.lockd import answers, background, failover, handout, locks
from lockstep.lockd.errors import InvalidRequest, LockdError, Lost, from_rpc_error
from lockstep.lockd.locks import ACCESS  # noqa: F401 (the package exports it from here)
from lockstep.lockd.valid import LockTimes
from lockstep.v1 import lockd_pb2 as pb


class Session:
    """A lockd session: its locks are released and lost when it lapses. It
    lives on one lockd (endpoint; default the client's first), and every call
    naming it goes there. Given a Client of several lockds, a session kept
    alive in the background moves to another when its lockd fails, with its
    locks (failover.py): id and endpoint then name the new session and lockd,
    and moves counts the moves. Safe for concurrent use by several threads."""

    def __init__(self, client, session_id, ttl, endpoint=None, name="", peer=None, on_move=None):
        self.client, self.ttl, self.name = client, ttl, name
        self._on_move = on_move
        self._conn = failover.Conn(client.endpoints[0] if endpoint is None else endpoint, session_id)
        self._times = LockTimes(ttl)
        # The session's deadline (time.monotonic()) once kept alive in the
        # background: the send of the last answered KeepAlive plus the TTL.
        self._deadline = None
        self._lost = threading.Event()
        self._lost_reason = None
        self._mu = threading.Lock()
        self._move_mu = threading.Lock()  # one move at a time
        self._closing = threading.Event()
        self._locks = {}  # name → locks.Lock
        self._names = {}  # handle at the lockd in use → name
        self._left = {}  # endpoint → the session a move left there
        self._left_behind = set()  # names of the locks a move did not carry
        self._keepers = []  # every Keeper started, for close to stop
        # The identity's latest peer token (None: the session does not
        # move), the GetToken calls sent for it, and the one it came from.
        self._peer = peer
        self._peer_seq = self._peer_at = 0
        self._moving_off = None  # the Conn a move under way leaves (failover.move)
        self.moves = 0

    @property
    def id(self):
        """The session's id at the lockd it uses now (a move opens another)."""
        return self._conn.id

    @property
    def endpoint(self):
        """The lockd the session uses now."""
        return self._conn.endpoint

    @property
    def _keeper(self):
        return self._conn.keeper

    def _moving(self):
        """Whether the session moves when its lockd fails: it knows several
        lockds, holds a peer token, and is kept alive in the background."""
        return self._peer is not None and self._deadline is not None and len(self.client.endpoints) > 1

    def _call(self, method, request, timeout=None, conn=None):
        """Calls method at conn (default: the lockd in use); an answer saying
        the session ended at lockd, or that lockd does not know it, loses the
        session and its locks before it is raised."""
        c = self._conn if conn is None else conn
        try:
            return self.client.call(method, request, timeout=timeout, endpoint=c.endpoint)
        except Lost as err:
            answers.ended(self, c, err)
            raise

    def _failed(self, c, err, timeout):
        """Handles the error of a caller's call at c (its timeout, None when
        it gave none): a session whose lockd could not answer moves. Returns
        True when the session moved off c and lives: the caller may repeat
        the call at the new lockd."""
        if not self._moving() or self._closing.is_set() or not failover.movable(err, timeout):
            return False
        failover.move(self, c, err)
        return self._conn is not c and not self._lost.is_set()

    def _moved(self, move):
        """Tells on_move, if given, of a move (failover.Move)."""
        if self._on_move is not None:
            self._on_move(move)

    def _holds(self):
        """Whether the session has a lock."""
        with self._mu:
            return bool(self._locks)

    def lock(self, ids, timeout=None, comment="", flat=False, no_mask=False):
        """Blocks until the lock (an id, or a group of ids and (id, access)
        pairs; an id "a/b/*" is a mask) is held; timeout in seconds. comment
        names the unit of work in deadlock cycles. flat and no_mask declare
        every id one name, not a path, and no mask (seed 003's query without
        HIERARCHY, without MASK): an id that is one under lockd's separator
        raises InvalidRequest; they never change what is taken. Returns the
        HeldLock: its lock_id to unlock, its fencing token, and reentrant,
        true when the session's identity already held every member and the
        call only counted. Raises Deadlock if chosen to break a cycle of
        waits; Unavailable if the lockd failed (the session moves, if it can:
        lock again)."""
        return self._take("Lock", locks.items(ids, flat, no_mask), timeout, comment)

    def try_lock(self, ids, comment="", flat=False, no_mask=False):
        """Takes the lock at once, or raises Locked."""
        return self._take("TryLock", locks.items(ids, flat, no_mask), None, comment)

    def _take(self, method, items, timeout, comment):
        c = self._conn
        sent = time.monotonic()
        try:
            held = self._call(method, pb.LockRequest(session_id=c.id, items=items, comment=comment), timeout=timeout, conn=c).lock
        except LockdError as err:
            self._failed(c, err, timeout)
            raise
        late = None
        short = sent + min(self.ttl, locks.seconds(held.valid_for)) - time.monotonic() < self.ttl / 3
        if method == "Lock" and self._deadline is not None and short and self._conn is c:
            # Granted late in a long wait: its time counted from the call's
            # send is short or over. Ask again how long it stays valid before
            # the lock is recorded, so that no check in between (the keeper's,
            # lost()) takes it as lost by the short count.
            late = answers.ask(self, c)
        name = handout.hand_out(self, c, held, items, sent, late)  # raises if it is not handed out
        if late is not None:
            answers.answered(self, c, *late)
        return locks.renamed(held, name)

    def _granted(self, c, held, items, sent, late=None, peer=None, moving=False):
        """Records a lock an answer at c to a call sent at sent returned,
        starts its deadline — or the later one a KeepAlive (late: its send
        and answer) gave it — and wakes the keeper to time its KeepAlives by
        it; returns its name (its handle, until the session has moved), or
        None if the session no longer uses c. For a session that moves
        (moving), the lock is recorded only with peer (a token read at c
        after the answer, and its GetToken's number), which it keeps in the
        same step, and not while a move off c is under way: that move's
        token was taken before and cannot carry the lock (handout.py)."""
        with self._mu:
            if self._conn is not c or (moving and (peer is None or self._moving_off is c)):
                return None
            if peer is not None and peer[1] > self._peer_at:
                self._peer, self._peer_at = peer
            name = self._names.get(held.lock_id)  # adopted back by set_token: known
            if name is None:
                name = held.lock_id if self.moves == 0 else f"{held.lock_id}@{self.moves}"
                self._locks[name] = locks.Lock(name, list(items), held.token, held.reentrant, held.lock_id)
                self._names[held.lock_id] = name
            later = None
            if late is not None and held.lock_id in late[1].valid_for:
                later = (late[0], locks.seconds(late[1].valid_for[held.lock_id]))
            self._times.granted(name, sent, locks.seconds(held.valid_for), later)
        if c.keeper is not None:
            c.keeper.added()
        return name

    def unlock(self, lock):
        """Releases a HeldLock (or its lock_id). Raises Lost if its lease
        had been lost before, or a move left it behind: the work it guarded
        may not have been exclusive. If the lockd fails under it and the
        session moves, it unlocks at the new lockd."""
        name = lock if isinstance(lock, str) else lock.lock_id
        while True:
            c, handle = self._handle(name)
            try:
                self._call("Unlock", pb.UnlockRequest(session_id=c.id, lock_id=handle), conn=c)
            except LockdError as err:
                if self._failed(c, err, None):
                    continue  # the session moved: unlock there
                if locks.lost_or_gone(err):
                    self._forget(c, [handle])
                    # The old lockd's session ended or lost the lock while a
                    # move carried it to another lockd: release it there
                    # too, or that lockd holds it for the session until the
                    # session ends. Released there, the lock was not lost:
                    # the move kept it (held throughout), and the new lockd
                    # released it.
                    if self._unlock_carried(c, name):
                        failover.refresh_peer(self)
                        return
                raise
            self._forget(c, [handle])
            self._unlock_carried(c, name)
            failover.refresh_peer(self)
            return

    def _handle(self, name):
        """The lockd in use and the handle there of the lock named name: the
        name itself for a lock the session does not know, until it has
        moved; then such a name is refused without a call."""
        with self._mu:
            c, lk = self._conn, self._locks.get(name)
            if lk is not None:
                return c, lk.handle
            if name in self._left_behind:
                self._left_behind.discard(name)
                raise Lost(grpc.StatusCode.ABORTED, f"lock {name} was left behind by a move to another lockd, and is lost", None)
            if self.moves == 0:
                return c, name
        raise InvalidRequest(grpc.StatusCode.NOT_FOUND, f"lock {name!r} is not one this session holds (released already?)", None)

    def _unlock_carried(self, c, name):
        """Releases, at the lockd the session moved to, a lock just released
        at c while a move carried it there; returns True if it did (the
        move kept the lock, and the new lockd released it)."""
        with self._mu:
            c2, lk = self._conn, self._locks.get(name)
        if c2 is c or lk is None:
            return False
        try:
            self.client.call("Unlock", pb.UnlockRequest(session_id=c2.id, lock_id=lk.handle), endpoint=c2.endpoint)
        except LockdError:
            return False
        self._forget(c2, [lk.handle])
        return True

    def _forget(self, c, handles):
        """Drops the released locks of handles at c, if the session still
        uses c, and returns their names."""
        names = []
        with self._mu:
            if self._conn is not c:
                return names
            for h in handles:
                name = self._names.pop(h, h)
                self._locks.pop(name, None)
                names.append(name)
        for name in names:
            self._times.forget(name)
        return names

    def unlock_all(self):
        """Releases every lock of the session (seed 003's unlockAll) and
        keeps the session open. Returns the lock_ids released."""
        c = self._conn
        try:
            res = self._call("UnlockAll", pb.UnlockAllRequest(session_id=c.id), conn=c)
        except LockdError as err:
            self._failed(c, err, None)
            raise
        names = self._forget(c, list(res.lock_ids))
        failover.refresh_peer(self)
        return names

    def get_token(self):
        """The token of the session's identity (seed 003's getToken): a
        secret another session of this lockd passes to set_token."""
        c = self._conn
        return self._call("GetToken", pb.GetTokenRequest(session_id=c.id), conn=c).token

    def set_token(self, token):
        """Joins the identity token names (seed 003's setToken): this session
        then holds its locks (returned, as HeldLocks) and every lock it
        takes later. Raises InvalidRequest (REASON_INVALID_TOKEN: malformed;
        REASON_UNKNOWN_TOKEN: its sessions all ended), Refused
        (REASON_NOT_YOUR_TOKEN) or LockdError (REASON_OWN_TOKEN,
        REASON_HOLDS_LOCKS, REASON_OTHER_LOCKD); each changes nothing."""
        c = self._conn
        sent = time.monotonic()
        adopted = list(self._call("SetToken", pb.SetTokenRequest(session_id=c.id, token=token), conn=c).locks)
        out = []
        for held in adopted:
            name = self._granted(c, held, held.items, sent)
            if name is None:  # the session moved meanwhile: not carried
                self._times.lose([held.lock_id])
            out.append(locks.renamed(held, name or held.lock_id))
        failover.refresh_peer(self)
        return out

    def keep_alive(self):
        c = self._conn
        self._call("KeepAlive", pb.KeepAliveRequest(session_id=c.id), conn=c)

    def describe(self):
        c = self._conn
        return self._call("DescribeSession", pb.DescribeSessionRequest(session_id=c.id), conn=c)

    def watch(self):
        """Yields the session's events (SessionEvent): WATCHING, LOCK_LOST...,
        then EXPIRED or CLOSED."""
        c = self._conn
        try:
            for ev in self.client.watch_call(c.id, c.endpoint):
                yield ev
        except grpc.RpcError as err:
            raise from_rpc_error(err) from None

    def keep_alive_in_background(self):
        """Keeps the session alive and tells its holder when its locks must
        be taken as lost (lost(), lost_locks): a KeepAlive every third of
        the TTL, or within half the time the earliest lock has left (brought
        forward, never put off, by each lock added; every tenth of the TTL after a
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
        as lost, so does every lock it holds, and lost_locks names them.

        With several endpoints, a broken watch stream or a call lockd could
        not answer (each KeepAlive is cut at half the time the session and
        its earliest lock have left) moves the session to another lockd
        instead, within the session's TTL (the package documentation,
        "Fail-over")."""
        self._deadline = time.monotonic() + self.ttl
        with self._mu:
            self._start_keeper(self._conn)

    def _start_keeper(self, c):
        """Starts c's Keeper; s._mu is held, so that close() stops it."""
        c.keeper = background.Keeper(self, c)
        self._keepers.append(c.keeper)
        c.keeper.start()

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

    def valid_until(self, lock):
        """The lock's own deadline (time.monotonic()), given a HeldLock or
        its lock_id: until then, by what lockd said (valid_for, counted from
        the send of the call that carried it), the lock is certain to stay
        valid, and lost(lock) turns true then unless a KeepAlive answer or a
        move's adoption gives it more time first. None once the lock is
        released, or a move left it behind."""
        return self._times.deadline(lock if isinstance(lock, str) else lock.lock_id)

    def lost_reason(self):
        """Why the session counts as lost, or None."""
        return self._lost_reason

    def _lose(self, reason, lock_ids=()):
        """Marks the session lost, and with it every lock it holds (and
        lock_ids, handles at the lockd in use): whichever thread notices
        first (the keeper's deadline, lost(), the watcher, a move),
        lost_locks names them all before lost() can answer True."""
        with self._mu:
            self._times.lose([self._names.get(h, h) for h in lock_ids])
            self._times.lose()
            if not self._lost.is_set():
                self._lost_reason = reason
                self._lost.set()

    def close(self):
        """Releases every lock of the session and ends it; a move under way
        stops."""
        with self._mu:
            self._closing.set()
            c, keepers = self._conn, list(self._keepers)
        for k in keepers:
            k.stop_keep_alives()
        try:
            self._call("CloseSession", pb.CloseSessionRequest(session_id=c.id), conn=c)
        finally:
            for k in keepers:
                k.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
