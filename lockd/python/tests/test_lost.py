"""When a session's locks count as lost (Session.keep_alive_in_background):
never while lockd still holds them, and at once when lockd no longer knows
the session."""

import threading
import time

import pytest

from lockstep.lockd import Lost, Unavailable


def answered(call):
    """call(), again while it fails Unavailable (for up to 5 s): the first
    call after lockd restarted may meet the connection it dropped."""
    deadline = time.monotonic() + 5
    while True:
        try:
            return call()
        except Unavailable:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_a_lock_whose_valid_for_is_shorter_than_the_keepers_wait_stays_held(a):
    # lockd's lock cells have a 6 s TTL, so a lock's valid_for is about 2 s,
    # shorter than the third of the session's 10 s TTL the keeper waits
    # between KeepAlives. A lock taken while the keeper waits must wake it,
    # so that a KeepAlive renews the lock within half its valid_for.
    with a.session(ttl=10) as s:
        held = s.lock("py-invoice-42", timeout=5)
        valid_for = held.valid_for.ToTimedelta().total_seconds()
        assert 0 < valid_for < 10 / 3, "the test needs a valid_for shorter than the keeper's wait"
        granted = time.monotonic()
        while time.monotonic() - granted < 1.5 * valid_for + 0.5:  # the old keeper lost it at valid_for
            assert not s.lost(held), f"lost {time.monotonic() - granted:.1f} s after the grant, while lockd holds it"
            time.sleep(0.05)
        assert [l.lock_id for l in s.describe().locks] == [held.lock_id], "lockd still holds it"
        until = s.valid_until(held)
        assert time.monotonic() < until <= time.monotonic() + valid_for + 0.1, "valid_until: the deadline KeepAlives moved on"
        s.unlock(held)
        assert not s.lost()
        assert s.valid_until(held) is None, "released: no deadline"


def test_a_restarted_lockd_that_no_longer_knows_the_session_is_a_loss(a, restart_lockd):
    # Not kept alive in the background: only the call's answer can tell.
    s = a.open_session(ttl=30)
    held = s.lock("py/restart-1", timeout=5)
    restart_lockd()
    with pytest.raises(Lost) as e:
        answered(lambda: s.lock("py/restart-2", timeout=5))
    assert e.value.reason == "REASON_UNKNOWN_SESSION"
    assert s.lost() and s.lost(held), "the session and every lock it held are lost"
    assert held.lock_id in s.lost_locks
    assert "no longer knows" in s.lost_reason()
    with pytest.raises(Lost):
        s.unlock(held)


def test_a_background_session_of_a_restarted_lockd_is_lost_and_its_calls_say_so(a, restart_lockd):
    s = a.session(ttl=30)
    held = s.lock("py/restart-3", timeout=5)
    restart_lockd()
    deadline = time.monotonic() + 5
    while not s.lost() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert s.lost(held), "the holder is told"
    with pytest.raises(Lost) as e:
        answered(lambda: s.unlock(held))
    assert e.value.reason == "REASON_UNKNOWN_SESSION"
    with pytest.raises(Lost):
        answered(s.close)
    with a.session(ttl=30) as other:
        other.unlock(other.try_lock("py/restart-3"))  # the restarted lockd holds nothing of the old session


def test_a_lock_granted_after_a_wait_longer_than_its_valid_for_is_not_lost(a):
    # The grant's valid_for counts from the Lock call's send: after a wait
    # of 3 s it is over (about 2 s here). The session asks once more
    # (a KeepAlive) before it records the lock, so the keeper, woken by
    # the new lock, cannot take it as lost by the first count.
    with a.session(ttl=10) as holder, a.session(ttl=10) as waiter:
        first = holder.lock("py-late-grant", timeout=5)
        got = {}

        def wait():
            got["held"] = waiter.lock("py-late-grant", timeout=10)

        t = threading.Thread(target=wait)
        t.start()
        time.sleep(3)
        holder.unlock(first)
        t.join(10)
        held = got["held"]
        assert held.valid_for.ToTimedelta().total_seconds() < 3, "the test needs a valid_for shorter than the wait"
        for _ in range(20):
            assert not waiter.lost(held), "a lock lockd holds was taken as lost after a long wait"
            time.sleep(0.05)
        waiter.unlock(held)


def test_a_busy_caller_keeps_its_session_alive(a):
    # Locks taken more often than the keeper's wait (a third of the TTL)
    # may bring the next KeepAlive forward, never put it off: the calls
    # keep going out and the session outlives several TTLs.
    with a.session(ttl=1) as s:
        for i in range(30):  # 30 × 0.1 s: three TTLs
            held = s.lock(f"py-busy-{i}", timeout=5)
            time.sleep(0.1)
            s.unlock(held)
        assert not s.lost(), f"the session lapsed while its caller kept taking locks: {s.lost_reason()}"
