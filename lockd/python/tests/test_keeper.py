"""The keeper's threads against a scripted client (no lockd): stopping them
never waits on lockd."""

import threading

import pytest

from lockstep.lockd import Session
from lockstep.v1 import lockd_pb2 as pb

pytestmark = pytest.mark.no_lockd


class QuietWatch:
    """A watch stream that yields nothing until cancelled."""

    def __init__(self):
        self._cancelled = threading.Event()

    def __iter__(self):
        return self

    def __next__(self):
        self._cancelled.wait()
        raise StopIteration

    def cancel(self):
        self._cancelled.set()


class StopDuringKeepAlive:
    """A client whose first KeepAlive returns only once another thread has
    begun stopping the keep-alive thread: the stop lands while the call is
    in flight, between two waits."""

    endpoints = ["scripted:1"]

    def __init__(self):
        self.session = None
        self.stopper = None
        self.keep_alives = 0

    def call(self, method, request, timeout=None, endpoint=None):
        assert method == "KeepAlive", method
        self.keep_alives += 1
        if self.stopper is None:
            stopper = threading.Thread(target=self.session._keeper.stop_keep_alives)
            stopper.start()
            self.stopper = stopper  # started: the test joins it
            while not self.session._keeper._stop.is_set():
                threading.Event().wait(0.001)
        return pb.KeepAliveResponse()

    def watch_call(self, session_id, endpoint):
        return QuietWatch()


def test_a_stop_during_a_keep_alive_call_ends_the_thread():
    client = StopDuringKeepAlive()
    s = Session(client, "s-scripted", ttl=0.3)
    client.session = s
    s.keep_alive_in_background()
    while client.stopper is None:
        threading.Event().wait(0.01)
    client.stopper.join(2)
    alive = client.stopper.is_alive()
    s._keeper._stop.set()  # let a stuck thread go if the check below fails
    s._keeper._watch_call.cancel()
    assert not alive, f"stopping waited on the keep-alive thread, which made {client.keep_alives - 1} more KeepAlives after the stop"
    assert client.keep_alives == 1
