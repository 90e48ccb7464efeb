"""Tests of the lockstep.lockd package, installed, against a running lockd
(conftest.py)."""

import os
import threading
import time

import pytest

from lockstep.lockd import Client, Deadlock, InvalidRequest, Locked, LockdError, Lost, Refused, Timeout
from lockstep.v1 import lockd_pb2 as pb

ADDR = os.environ.get("LOCKD_ADDR")


def test_second_session_waits_then_gets_the_lock(a):
    with a.session() as s1, a.session() as s2:
        held = s1.lock("py-invoice-1", timeout=5)
        assert held.token > 0
        with pytest.raises(Locked) as e:
            s2.try_lock("py-invoice-1")
        assert e.value.reason == "REASON_LOCKED"
        got = {}
        t = threading.Thread(target=lambda: got.setdefault("lock", s2.lock("py-invoice-1", timeout=10)))
        t.start()
        t.join(0.2)
        assert t.is_alive(), "the second session waits while the first holds"
        s1.unlock(held)
        t.join(10)
        assert got["lock"].token > held.token


def test_lapsed_session_loses_its_lock_to_the_waiter(a):
    s1 = a.open_session(ttl=1)  # never kept alive
    held = s1.lock("py/lapse", timeout=5)
    events = s1.watch()
    assert next(events).kind == pb.SessionEvent.KIND_WATCHING
    with a.session(ttl=30) as s2:
        got = s2.lock("py/lapse", timeout=10)  # granted once s1 lapses
        assert got.lock_id
        ev = next(events)
        assert ev.kind == pb.SessionEvent.KIND_EXPIRED
        assert list(ev.lock_ids) == [held.lock_id]
    with pytest.raises(Lost) as e:
        s1.keep_alive()
    assert e.value.reason == "REASON_SESSION_EXPIRED"
    assert list(e.value.detail.lost_lock_ids) == [held.lock_id]


def test_background_session_tells_its_holder_when_it_lapsed(a):
    s1 = a.session(ttl=1)
    held = s1.lock("py/bg-lapse", timeout=5)
    time.sleep(1.5)  # kept alive past its TTL
    assert not s1.lost() and not s1.lost(held)
    s1._keeper.stop_keep_alives()  # as if cut off; the watch stays
    with a.session(ttl=30) as s2:
        got = s2.lock("py/bg-lapse", timeout=10)  # granted once s1 lapses
        deadline = time.monotonic() + 5
        while not s1.lost() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert s1.lost(held), "the holder is told"
        assert s1.lost_reason() is not None
        assert held.lock_id in s1.lost_locks
        s2.unlock(got)
    with pytest.raises(Lost):
        s1.close()


def test_a_lost_session_names_every_lock_it_held(a):
    # Whichever thread finds the session lost first (here, as the keeper does
    # when no KeepAlive was answered within the TTL), lost_locks names its
    # locks by then: the holder need not wait for lockd's EXPIRED event.
    s1 = a.session(ttl=30)
    held = s1.lock("py/lose-all", timeout=5)
    s1._lose("no KeepAlive answered within the session's TTL")
    assert s1.lost() and s1.lost(held)
    assert held.lock_id in s1.lost_locks
    s1.close()


def test_group_and_hierarchy(a):
    with a.session() as s1, a.session() as s2:
        s1.lock([("py/a/b", "S"), ("py/a/c", "X")], timeout=5)
        with pytest.raises(Locked):
            s2.try_lock("py/a")
        with pytest.raises(Locked):
            s2.try_lock([("py/a/c/d", "S")])
        s2.unlock(s2.try_lock([("py/a/b", "S")]))
        s2.unlock(s2.try_lock([("py/a", "IS")]))


def test_reentrant_per_session(a):
    with a.session() as s1, a.session() as s2:
        first = s1.lock("py/job", timeout=5)
        second = s1.lock("py/job", timeout=5)
        assert second.reentrant and second.token == first.token
        s1.unlock(second)
        with pytest.raises(Locked):
            s2.try_lock("py/job")
        s1.unlock(first)
        s2.unlock(s2.try_lock("py/job"))


def test_deadline(a):
    with a.session() as s1, a.session() as s2:
        s1.lock("py/slow", timeout=5)
        with pytest.raises(Timeout):
            s2.lock("py/slow", timeout=0.2)


def test_refusals(a, b):
    with pytest.raises(Refused) as e:
        Client([ADDR], token="not-a-token").open_session()
    assert e.value.reason == "REASON_UNAUTHENTICATED"
    with a.session() as s1:
        with pytest.raises(Refused) as e:
            s1.lock("other/x", timeout=5)
        assert e.value.reason == "REASON_NO_PREFIX"
        held = s1.lock("py/mine", timeout=5)
        theirs = b.open_session()
        stolen = type(s1)(b, s1.id, s1.ttl)  # b names a's session
        with pytest.raises(Refused) as e:
            stolen.unlock(held)
        assert e.value.reason == "REASON_NOT_YOUR_SESSION"
        with pytest.raises(Refused):
            stolen.describe()
        theirs.close()
    with pytest.raises(Refused) as e:
        a.list_sessions()  # not granted list_sessions: other principals' sessions stay hidden
    assert e.value.reason == "REASON_NOT_YOUR_SESSION"
    with pytest.raises(Lost) as e:  # lockd does not know it: restarted, or never opened it
        a.call("Lock", pb.LockRequest(session_id="s-unknown", items=[pb.LockItem(id="py/x")]))
    assert e.value.reason == "REASON_UNKNOWN_SESSION"


def test_deadlock_names_the_cycle_and_unlock_all_lets_the_other_through(a):
    with a.session() as s1, a.session() as s2:
        s1.lock("py/dl-x", timeout=5)
        s2.lock("py/dl-y", timeout=5)
        got = {}
        t = threading.Thread(target=lambda: got.setdefault("lock", s1.lock("py/dl-y", timeout=30, comment="job one")))
        t.start()
        t.join(0.3)  # s1 waits first: s2's wait is the victim
        with pytest.raises(Deadlock) as e:
            s2.lock("py/dl-x", timeout=30, comment="job two")
        assert e.value.reason == "REASON_DEADLOCK"
        cycle = e.value.cycle
        assert [m.waits.id for m in cycle] == ["py/dl-x", "py/dl-y"]
        assert [m.comment for m in cycle] == ["job two", "job one"]
        assert all(m.held_by for m in cycle)
        assert t.is_alive(), "s1 still waits for what s2 holds"
        assert len(s2.unlock_all()) == 1
        t.join(30)
        assert got["lock"].lock_id


def test_unlock_all_releases_every_lock_and_keeps_the_session(a):
    with a.session() as s1, a.session() as s2:
        ids = [s1.lock("py/u1", timeout=5).lock_id, s1.lock([("py/u2", "S"), "py/u3"], timeout=5).lock_id]
        assert s1.unlock_all() == ids
        assert list(s1.describe().locks) == []
        s2.unlock(s2.try_lock(["py/u1", "py/u2", "py/u3"]))
        assert s1.unlock_all() == []


def test_mask_excludes_every_child_and_is_refused_outside_the_grant(a):
    with a.session() as s1, a.session() as s2:
        held = s1.lock("py/dir/*", timeout=5)
        for id_ in ["py/dir/f", "py/dir/new/g", "py/dir"]:
            with pytest.raises(Locked):
                s2.try_lock(id_)
        s2.unlock(s2.try_lock("py/elsewhere"))
        s1.unlock(held)
        s2.unlock(s2.try_lock("py/dir/f"))
        with pytest.raises(Refused) as e:
            s1.try_lock("other/*")
        assert e.value.reason == "REASON_NO_PREFIX"


def test_flags_declare_and_a_flat_root_excludes_the_paths_below_it(a):
    with a.session() as s1, a.session() as s2:
        root = s1.lock("py-flat", timeout=5, flat=True, no_mask=True)
        with pytest.raises(Locked):
            s2.try_lock([("py-flat/page", "S")])
        again = s1.try_lock("py-flat", flat=True)
        assert again.reentrant and not root.reentrant
        s1.unlock(again)
        s1.unlock(root)
        with pytest.raises(InvalidRequest) as e:
            s1.try_lock("py/flat/page", flat=True)
        assert e.value.reason == "REASON_INVALID_ID"
        assert "drop lockstep.Flat" in str(e.value)
        with pytest.raises(InvalidRequest):
            s1.try_lock("py/dir/*", no_mask=True)
        assert list(s1.describe().locks) == []
        s2.unlock(s2.try_lock("py-flat/page"))


def test_set_token_hands_the_locks_over_without_releasing_them(a):
    giver = a.session()
    with a.session() as taker, a.session() as third:
        held = giver.lock("py-xfer-1", timeout=5)
        locks = taker.set_token(giver.get_token())
        assert [(l.lock_id, l.token) for l in locks] == [(held.lock_id, held.token)]
        assert held.token > 0, "the same fencing token: nothing was taken again"
        giver.close()  # the giver leaves; the taker still holds it
        with pytest.raises(Locked):
            third.try_lock("py-xfer-1")
        taker.unlock(held.lock_id)
        third.unlock(third.try_lock("py-xfer-1"))


def test_set_token_refusals(a, b):
    with a.session() as s1, a.session() as s2, b.session() as theirs:
        s1.lock("py/keep", timeout=5)
        tok = s1.get_token()
        with pytest.raises(Refused) as e:
            theirs.set_token(tok)  # another principal's identity, no adopt_from
        assert e.value.reason == "REASON_NOT_YOUR_TOKEN"
        with pytest.raises(InvalidRequest) as e:
            s2.set_token("lkt1.nope")
        assert e.value.reason == "REASON_INVALID_TOKEN"
        with pytest.raises(LockdError) as e:
            s1.set_token(tok)
        assert e.value.reason == "REASON_OWN_TOKEN"
        gone = a.open_session()
        gone_tok = gone.get_token()
        gone.close()
        with pytest.raises(InvalidRequest) as e:
            s2.set_token(gone_tok)  # its only session ended: its locks were released
        assert e.value.reason == "REASON_UNKNOWN_TOKEN"
        with pytest.raises(LockdError) as e:
            s1.set_token(s2.get_token())  # s1 is its identity's last and holds py/keep
        assert e.value.reason == "REASON_HOLDS_LOCKS"
        assert len(s1.describe().locks) == 1 and len(s2.describe().locks) == 0


def test_each_lock_has_its_own_deadline_from_lockd(a):
    with a.session(ttl=30) as s:
        held = s.lock("py/valid-for", timeout=5)
        v = held.valid_for.ToTimedelta().total_seconds()
        assert 0 < v <= 30, "lockd says how long the lock stays valid"
        left = s._times.deadline(held.lock_id) - time.monotonic()
        assert 0 < left <= v, "counted from the Lock call's send, not its answer"
        time.sleep(1)
        assert not s.lost(held), "KeepAlive answers give it more time"
        assert s._times.deadline(held.lock_id) - time.monotonic() > 0
        s.unlock(held)
        assert s._times.deadline(held.lock_id) is None
