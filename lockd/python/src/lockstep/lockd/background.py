"""Keeper: a session's keep-alive thread and its watch thread."""

import threading
import time

import grpc

from lockstep.lockd.errors import LockdError, Lost
from lockstep.v1 import lockd_pb2 as pb


class Keeper:
    """Keeps a Session alive and follows its watch stream, each on a thread
    of its own (Session.keep_alive_in_background says when the session and
    its locks count as lost). stop() ends both threads and waits for them."""

    def __init__(self, session):
        self._s = session
        self._stop = threading.Event()
        # Set by stop and by a new lock: either ends the keep-alive wait.
        self._wake = threading.Event()
        self._watch_call = None
        self._keep_alives = threading.Thread(target=self._keep_alive, daemon=True)
        self._watcher = threading.Thread(target=self._watch, daemon=True)

    def start(self):
        self._watch_call = self._s.client.watch_call(self._s.id, self._s.endpoint)
        self._keep_alives.start()
        self._watcher.start()

    def added(self):
        """Tells the keep-alive thread that a lock was added, so that it
        times its next KeepAlive by that lock's deadline too."""
        self._wake.set()

    def stop_keep_alives(self):
        """Stops the keep-alive thread and waits for it; the watch goes on."""
        self._stop.set()
        self._wake.set()
        self._keep_alives.join()

    def stop(self):
        """Stops both threads and waits for them."""
        self.stop_keep_alives()
        self._watch_call.cancel()
        self._watcher.join()

    def _keep_alive(self):
        """A KeepAlive every third of the TTL, or within half the time the
        earliest lock has left (every tenth of the TTL after a failure),
        timed again whenever a lock is added."""
        s, times = self._s, self._s._times
        wait = s.ttl / 3
        while True:
            times.check()
            # Cleared before the wait is timed, and stop checked after the
            # clear: a lock added or a stop from here on ends the wait, and
            # one before it is seen (stop sets _stop before _wake).
            self._wake.clear()
            if self._stop.is_set():
                return
            left = max(s._deadline - time.monotonic(), 0)
            woken = self._wake.wait(min(times.before_earliest(wait), left))
            if self._stop.is_set():
                return
            if woken:
                continue  # a lock whose time may end before this wait would
            if time.monotonic() >= s._deadline:
                s._lose("no KeepAlive answered within the session's TTL")
                return
            times.check()
            sent = time.monotonic()
            timeout = max(min(s._deadline - sent, times.until_earliest(s.ttl)), 0.01)
            try:
                res = s._call("KeepAlive", pb.KeepAliveRequest(session_id=s.id), timeout=timeout)
            except Lost as err:  # s._call has lost the session if lockd ended it
                s._lose(f"lockd ended the session: {err}")
                return
            except LockdError:
                wait = s.ttl / 10
                continue
            s._answered(sent, res)
            wait = s.ttl / 3

    def _watch(self):
        """Follows the session's events: LOCK_LOST loses those locks;
        EXPIRED, CLOSED or a broken stream lose the session."""
        s = self._s
        try:
            for ev in self._watch_call:
                if ev.kind == pb.SessionEvent.KIND_LOCK_LOST:
                    s._times.lose(ev.lock_ids)
                elif ev.kind in (pb.SessionEvent.KIND_EXPIRED, pb.SessionEvent.KIND_CLOSED):
                    s._lose(f"lockd says the session ended: {ev.reason}", ev.lock_ids)
                    return
        except grpc.RpcError as err:
            if not self._stop.is_set():
                s._lose(f"the watch stream broke: {err.code()}")
            return
        if not self._stop.is_set():
            s._lose("the watch stream ended")
