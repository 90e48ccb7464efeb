"""A watch stream for scripted clients in these tests: silent until cancelled."""

import threading


class SilentWatch:
    """A watch stream that stays silent until cancelled."""

    def __init__(self):
        self._done = threading.Event()

    def __iter__(self):
        self._done.wait()
        return iter(())

    def cancel(self):
        self._done.set()
