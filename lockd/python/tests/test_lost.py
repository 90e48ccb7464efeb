"""When a session's locks count as lost (Session.keep_alive_in_background):
never while lockd still holds them, and at once when lockd no longer knows
the session."""

import time


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
        while time.monotonic() - granted < 2 * valid_for + 1:
            assert not s.lost(held), f"lost {time.monotonic() - granted:.1f} s after the grant, while lockd holds it"
            time.sleep(0.05)
        assert [l.lock_id for l in s.describe().locks] == [held.lock_id], "lockd still holds it"
        s.unlock(held)
        assert not s.lost()
