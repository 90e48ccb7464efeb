"""The lockd the tests run against, given by the Go test TestPythonClient
(lockd/scripts/pytest runs it): LOCKD_ADDR is its address, LOCKD_TOKEN_A and
LOCKD_TOKEN_B the tokens of two principals granted "py/" and "py-" (flat
ids, which carry fencing tokens), and "other/"; LOCKD_RESTART_URL restarts
it (POST). It detects deadlocks, and its lock cells have a 6 s TTL (lockd
--lock-ttl 6s), so each lock's valid_for is about 2 s. It has no peer key.
LOCKD_CLUSTER lists three lockds of one cluster (one store, a shared peer
key, the same principals and lock TTL), whose faults LOCKD_FAULT_URL
switches (the fixture fault)."""

import os
import urllib.parse
import urllib.request

import pytest

from lockstep.lockd import Client

ADDR = os.environ.get("LOCKD_ADDR")


def pytest_configure(config):
    config.addinivalue_line("markers", "no_lockd: the test needs no lockd")


def pytest_collection_modifyitems(config, items):
    if not ADDR:
        skip = pytest.mark.skip(reason="LOCKD_ADDR not set: run lockd/scripts/pytest")
        for item in items:
            if item.get_closest_marker("no_lockd") is None:
                item.add_marker(skip)


@pytest.fixture
def a():
    c = Client([ADDR], token=os.environ["LOCKD_TOKEN_A"])
    yield c
    c.close()


@pytest.fixture
def b():
    c = Client([ADDR], token=os.environ["LOCKD_TOKEN_B"])
    yield c
    c.close()


@pytest.fixture
def restart_lockd():
    """Restarts the lockd at LOCKD_ADDR when called: it drops every
    connection and forgets every session, then serves again on the same
    address."""

    def restart():
        req = urllib.request.Request(os.environ["LOCKD_RESTART_URL"], method="POST")
        with urllib.request.urlopen(req, timeout=30) as res:
            assert res.status == 200

    return restart


CLUSTER = os.environ.get("LOCKD_CLUSTER", "").split(",")


@pytest.fixture
def fault():
    """fault(i, kind, **query) switches a fault of the cluster's lockd i:
    "cut" (every connection closed and none accepted, as a killed lockd
    looks to its clients), "hang" (new calls get no answer), "slow-set-token"
    (ms=N: each SetToken waits N ms), "restore" (none). Every lockd is
    restored after the test."""

    def switch(i, kind, **query):
        url = f"{os.environ['LOCKD_FAULT_URL']}/{i}/{kind}"
        if query:
            url += "?" + urllib.parse.urlencode(query)
        with urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=10) as res:
            assert res.status == 200

    yield switch
    for i in range(len(CLUSTER)):
        switch(i, "restore")
