"""Keeper: the keep-alive thread and the watch thread of a session on one
lockd."""

import threading
import time

import grpc

from lockstep.lockd import answers, failover
from lockstep.lockd.errors import LockdError, Lost
from lockstep.v1 import lockd_pb2 as pb


class Keeper:
    """Keeps a Session's session on one lockd (conn) alive and follows its
    watch stream, each on a thread of its own (Session.keep_alive_in_background
    says when the session and its locks count as lost). A move to another
    lockd gives it up (give_up) and starts the next lockd's. stop() ends both
    threads and waits for them."""

    def __init__(self, session, conn):
        self._s, self._c = session, conn
        self._stop = threading.Event()
        # Set by stop and by a new lock: either ends the keep-alive wait.
        self._wake = threading.Event()
        self._watch_call = None
        self._keep_alives = threading.Thread(target=self._keep_alive, daemon=True)
        self._watcher = threading.Thread(target=self._watch, daemon=True)

    def start(self):
        self._watch_call = self._s.client.watch_call(self._c.id, self._c.endpoint)
        self._keep_alives.start()
        self._watcher.start()

    def added(self):
        """Tells the keep-alive thread that a lock was added, so that it
        times its next KeepAlive by that lock's deadline too."""
        self._wake.set()

    def give_up(self):
        """Ends both threads without waiting for them (the thread that calls
        it may be one): the session moved off this lockd."""
        self._stop.set()
        self._wake.set()
        self._watch_call.cancel()

    def stop_keep_alives(self):
        """Stops the keep-alive thread and waits for it; the watch goes on."""
        self._stop.set()
        self._wake.set()
        if self._keep_alives is not threading.current_thread():
            self._keep_alives.join()

    def stop(self):
        """Stops both threads and waits for them."""
        self.stop_keep_alives()
        self._watch_call.cancel()
        if self._watcher is not threading.current_thread():
            self._watcher.join()

    def _keep_alive(self):
        """A KeepAlive every third of the TTL, or within half the time the
        earliest lock has left (every tenth of the TTL after a failure),
        brought forward (never put off) by a lock added. With several lockds
        each call is cut at half the time the session and its earliest lock have left,
        and one lockd could not answer moves the session (failover.py), so
        that a lockd that hangs leaves the move the other half."""
        s, c, times = self._s, self._c, self._s._times
        wait = s.ttl / 3
        # due is when the next call goes out. A lock added since can only
        # bring it forward (its time may end sooner): were the wait timed
        # again from each new lock, a caller taking locks more often than
        # the wait would keep the call from ever going out, and the session
        # would lapse.
        due = time.monotonic() + wait
        while True:
            times.check()
            # Cleared before the wait is timed, and stop checked after the
            # clear: a lock added or a stop from here on ends the wait, and
            # one before it is seen (stop sets _stop before _wake).
            self._wake.clear()
            if self._stop.is_set():
                return
            now = time.monotonic()
            left = max(s._deadline - now, 0)
            due = min(due, now + times.before_earliest(wait))
            woken = self._wake.wait(max(min(due - now, left), 0))
            if self._stop.is_set():
                return
            if woken:
                continue  # a lock whose time may end before due
            if time.monotonic() >= s._deadline:
                s._lose("no KeepAlive answered within the session's TTL")
                return
            times.check()
            sent = time.monotonic()
            if s._moving():
                timeout = max(times.until_earliest(max(s._deadline - sent, 0)) / 2, 0.01)
            else:
                timeout = max(min(s._deadline - sent, times.until_earliest(s.ttl)), 0.01)
            try:
                res = s.client.call("KeepAlive", pb.KeepAliveRequest(session_id=c.id), timeout=timeout, endpoint=c.endpoint)
            except Lost as err:
                if s._conn is c:
                    s._lose(f"lockd ended the session: {err}", err.detail.lost_lock_ids if err.detail else ())
                return
            except LockdError as err:
                if self._stop.is_set() or s._failed(c, err, None) or s._conn is not c or s._lost.is_set():
                    return  # moved (the new lockd's keeper runs), or ended
                wait = s.ttl / 10
                due = time.monotonic() + wait
                continue
            answers.answered(s, c, sent, res)
            wait = s.ttl / 3
            due = time.monotonic() + wait

    def _watch(self):
        """Follows the session's events: LOCK_LOST loses those locks;
        EXPIRED or CLOSED lose the session; DRAINING (its lockd shuts down)
        moves it to another lockd when there is one; a broken stream moves it to
        another lockd, or, without one, loses it (the client could no longer
        be told of a loss in time)."""
        s, c = self._s, self._c
        try:
            for ev in self._watch_call:
                if ev.kind == pb.SessionEvent.KIND_LOCK_LOST:
                    answers.lost_at(s, c, ev.lock_ids)
                elif ev.kind in (pb.SessionEvent.KIND_EXPIRED, pb.SessionEvent.KIND_CLOSED):
                    if s._conn is c:
                        s._lose(f"lockd says the session ended: {ev.reason}", ev.lock_ids)
                    return
                elif ev.kind == pb.SessionEvent.KIND_DRAINING and s._moving():
                    # Without other endpoints the session stays until lockd
                    # closes it (CLOSED, above), as at any shutdown.
                    if failover.drained(s, c, ev.reason):
                        return
        except grpc.RpcError as err:
            cause = f"the watch stream broke: {err.code()}"
        else:
            cause = "the watch stream ended"
        if self._stop.is_set() or s._conn is not c:
            return
        if s._moving():
            failover.move(s, c, cause)
            return
        s._lose(cause)
