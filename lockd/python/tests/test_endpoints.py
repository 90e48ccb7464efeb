"""A Client's endpoints: checked when given, and tried in order when a
session opens."""

import os
import socket

import pytest

from lockstep.lockd import Client, Unavailable

ADDR = os.environ.get("LOCKD_ADDR")
CLUSTER = os.environ.get("LOCKD_CLUSTER", "").split(",")


def closed_port():
    """An address on loopback where nothing listens: connecting is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.parametrize(
    "endpoints, says",
    [
        ([], "endpoints is empty"),
        (None, "give a list of lockd addresses"),
        (42, "give a list of lockd addresses"),
        ([None], "want a lockd address as a string"),
        ([""], "want a lockd address as a string"),
        (["http://127.0.0.1:7420"], "not a URL"),
        (["127.0.0.1:7420", "http://127.0.0.1:7421"], "not a URL"),
        (["127.0.0.1:7420", "127.0.0.1:7421", "127.0.0.1:7420"], "name a lockd twice"),
    ],
)
def test_bad_endpoints_are_refused_saying_what_to_give(endpoints, says):
    with pytest.raises(ValueError, match=says):
        Client(endpoints)


def test_one_string_is_a_list_of_one():
    c = Client(ADDR, token=os.environ["LOCKD_TOKEN_A"])
    assert c.endpoints == [ADDR]
    with c.session() as s:
        s.unlock(s.lock("py/one-endpoint", timeout=5))
    c.close()


def test_a_session_opens_on_the_next_endpoint_while_one_is_down():
    down = closed_port()
    c = Client([down, CLUSTER[0]], token=os.environ["LOCKD_TOKEN_A"])
    with c.session(ttl=10) as s:
        assert s.endpoint == CLUSTER[0]
        held = s.lock("py/next-endpoint", timeout=5)
        assert [l.lock_id for l in s.describe().locks] == [held.lock_id]
        assert not s.lost(held)
        s.unlock(held)
    c.close()


def test_no_endpoint_answering_raises_unavailable():
    c = Client([closed_port(), closed_port()], token=os.environ["LOCKD_TOKEN_A"])
    with pytest.raises(Unavailable):
        c.open_session(ttl=10)
    c.close()


def test_several_endpoints_are_refused_when_the_lockd_has_no_peer_key():
    # LOCKD_ADDR's lockd has none: its locks could never move to another.
    c = Client([ADDR, CLUSTER[0]], token=os.environ["LOCKD_TOKEN_A"])
    with pytest.raises(ValueError, match=f"the lockd at {ADDR} has no peer key.*--peer-key-file"):
        c.open_session(ttl=10)
    c.close()


def test_a_call_to_an_endpoint_the_client_was_not_given_is_refused():
    c = Client([ADDR], token=os.environ["LOCKD_TOKEN_A"])
    with pytest.raises(ValueError, match="not one of this client's"):
        c.list_sessions(endpoint=closed_port())
    c.close()
