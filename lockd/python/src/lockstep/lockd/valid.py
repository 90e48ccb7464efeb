"""Each held lock's own deadline, and the locks lost.

lockd says, in each answer that returns a lock and in each KeepAlive answer,
how long each lock is certain to stay valid even if lockd renews nothing
more (HeldLock.valid_for, KeepAliveResponse.valid_for). The client counts it
from the send of the call that carried it (lockd computed it later, as it
answered), never beyond the session's TTL from that send; a lock an answer
leaves out gets no more time. So a lockd that stops renewing cannot leave
the client holding a lock whose cells may already have expired.
"""

import threading
import time


class LockTimes:
    """The deadline (time.monotonic()) of each lock a session holds, and the
    ids of the locks it lost. Safe for concurrent use."""

    def __init__(self, ttl):
        self._ttl = ttl
        self._mu = threading.Lock()
        self._deadline = {}
        self._lost = set()

    def granted(self, lock_id, sent, valid_for, later=None):
        """Starts the deadline of a lock an answer to a call sent at sent
        returned: sent + valid_for (seconds), at most the TTL — or, given
        later (the send of a later KeepAlive and the valid_for its answer
        gave the lock), the later of the two, in one step: no check sees the
        first alone."""
        with self._mu:
            d = sent + min(self._ttl, valid_for)
            if later is not None:
                d = max(d, later[0] + min(self._ttl, later[1]))
            self._deadline[lock_id] = d

    def answered(self, sent, valid_for):
        """Applies a KeepAlive answer to a call sent at sent: each lock
        valid_for (lock_id → seconds) names moves to sent + its time (at
        most the TTL); a lock it leaves out gets no more time."""
        with self._mu:
            for lock_id, v in valid_for.items():
                if lock_id in self._deadline:
                    self._deadline[lock_id] = max(self._deadline[lock_id], sent + min(self._ttl, v))

    def forget(self, lock_id):
        """Drops a released lock."""
        with self._mu:
            self._deadline.pop(lock_id, None)

    def deadline(self, lock_id):
        """The lock's deadline, or None if it is not held."""
        with self._mu:
            return self._deadline.get(lock_id)

    def until_earliest(self, d):
        """d, or less: the time left of the earliest deadline still ahead."""
        now = time.monotonic()
        with self._mu:
            for deadline in self._deadline.values():
                if deadline > now:
                    d = min(d, deadline - now)
        return d

    def before_earliest(self, wait):
        """wait, or less: half the time the earliest deadline still ahead
        has (at least 10 ms), so that a KeepAlive renews it well before."""
        now = time.monotonic()
        with self._mu:
            for deadline in self._deadline.values():
                if deadline > now:
                    wait = min(wait, max((deadline - now) / 2, 0.01))
        return wait

    def check(self):
        """Loses every lock whose deadline has passed."""
        now = time.monotonic()
        with self._mu:
            for lock_id, deadline in self._deadline.items():
                if now >= deadline:
                    self._lost.add(lock_id)

    def lose(self, lock_ids=None):
        """Loses the locks lock_ids names, or every held lock."""
        with self._mu:
            self._lost.update(self._deadline if lock_ids is None else lock_ids)

    def lost(self):
        """The ids of the locks lost (a copy)."""
        with self._mu:
            return set(self._lost)

    def is_lost(self, lock_id):
        with self._mu:
            return lock_id in self._lost
