"""Client: the connection to lockd, and the calls that name no session."""

import weakref

import grpc

from lockstep.lockd import failover
from lockstep.lockd.errors import from_rpc_error
from lockstep.lockd.session import Session
from lockstep.v1 import lockd_pb2 as pb
from lockstep.v1 import lockd_pb2_grpc


def _endpoints(endpoints):
    """Checks endpoints ("host:port", or a list of them) and returns them as
    a list; raises ValueError saying what to give instead."""
    if isinstance(endpoints, str):
        endpoints = [endpoints]
    try:
        endpoints = list(endpoints)
    except TypeError:
        raise ValueError(f"endpoints {endpoints!r}: give a list of lockd addresses, such as [\"127.0.0.1:7420\"]") from None
    if not endpoints:
        raise ValueError("endpoints is empty: give at least one lockd address, such as [\"127.0.0.1:7420\"]")
    for e in endpoints:
        if not isinstance(e, str) or not e.strip():
            raise ValueError(f"endpoint {e!r}: want a lockd address as a string, such as \"127.0.0.1:7420\"")
        if "://" in e:
            raise ValueError(f"endpoint {e!r}: give host:port (a gRPC target, such as \"127.0.0.1:7420\"), not a URL")
    if len(set(endpoints)) < len(endpoints):
        raise ValueError(f"endpoints {endpoints!r} name a lockd twice: give each lockd of the cluster once")
    return endpoints


class Client:
    """A connection to one or more lockds. endpoints is a list of lockd
    addresses ("host:port"; a single string is taken as a list of one). With
    one, a session lives and ends with that lockd. Several must be lockds of
    one cluster (the same store and --peer-key-file): a session opens on the
    first that answers, trying the others while one cannot answer (down,
    unreachable, shutting down), and a session kept alive in the background
    moves to another, with its locks, when its lockd fails (the package
    documentation, "Fail-over"); opening refuses, with ValueError, a lockd
    without a peer key, whose locks no other lockd could take over. credentials,
    when given, are grpc channel credentials (TLS, with a client
    certificate for mTLS); token is a bearer token sent with every call.
    Safe for concurrent use by several threads."""

    def __init__(self, endpoints, token=None, credentials=None):
        self.endpoints = _endpoints(endpoints)
        self._channels, self._stubs = {}, {}
        for target in self.endpoints:
            if credentials is not None:
                channel = grpc.secure_channel(target, credentials)
            else:
                channel = grpc.insecure_channel(target)
            self._channels[target] = channel
            self._stubs[target] = lockd_pb2_grpc.LockServiceStub(channel)
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()
        # Close the channels when the client is collected, or at the latest
        # when the interpreter exits, while grpc's threads still run: a
        # channel left open to the end can deadlock the exit, the main
        # thread finalizing a call whose lock a daemon thread of grpc's
        # held when it was frozen (seen once in CI: a script that never
        # called close() hung in _Rendezvous.__del__).
        self._finalizer = weakref.finalize(self, _close_channels, list(self._channels.values()))

    def _stub(self, endpoint):
        if endpoint is None:
            return self._stubs[self.endpoints[0]]
        if endpoint not in self._stubs:
            raise ValueError(f"endpoint {endpoint!r} is not one of this client's: {self.endpoints}")
        return self._stubs[endpoint]

    def call(self, method, request, timeout=None, endpoint=None):
        """Calls method (a LockService method's name) with request on the
        lockd at endpoint (default: the first); raises the matching
        LockdError."""
        stub = self._stub(endpoint)
        try:
            return getattr(stub, method)(request, timeout=timeout, metadata=self._metadata)
        except grpc.RpcError as err:
            raise from_rpc_error(err) from None

    def watch_call(self, session_id, endpoint):
        """The WatchSession stream of a session at endpoint (a grpc call:
        iterate it, cancel() it)."""
        return self._stub(endpoint).WatchSession(pb.WatchSessionRequest(session_id=session_id), metadata=self._metadata)

    def open_session(self, ttl=None, name="", on_move=None):
        """Opens a session; ttl in seconds (None: the server's default).
        With several endpoints, on the first that answers, around the list
        twice, where it reads the session's first peer token (failover.py);
        raises Unavailable when none answers, ValueError for a lockd
        without a peer key, or what a lockd answered otherwise. on_move, when
        given, is called with a failover.Move after each move (the package
        documentation, "Fail-over")."""
        req = pb.OpenSessionRequest(name=name)
        if ttl is not None:
            req.ttl.CopyFrom(failover.duration(ttl))
        if len(self.endpoints) == 1:
            res = self.call("OpenSession", req, endpoint=self.endpoints[0])
            return Session(self, res.session_id, res.ttl.ToTimedelta().total_seconds(), self.endpoints[0], name=name)
        endpoint, res, peer = failover.open_first(self, req)
        return Session(self, res.session_id, res.ttl.ToTimedelta().total_seconds(), endpoint, name=name, peer=peer, on_move=on_move)

    def session(self, ttl=None, name="", on_move=None):
        """A session that keeps itself alive until closed (a context
        manager); on_move as for open_session."""
        s = self.open_session(ttl, name, on_move)
        s.keep_alive_in_background()
        return s

    def list_sessions(self, endpoint=None):
        """Every live session of the lockd at endpoint (default: the first),
        as DescribeSessionResponses: for a principal granted list_sessions;
        Refused otherwise."""
        return list(self.call("ListSessions", pb.ListSessionsRequest(), endpoint=endpoint).sessions)

    def close(self):
        """Closes the channels; done anyway when the client is collected or
        the interpreter exits."""
        self._finalizer()


def _close_channels(channels):
    for channel in channels:
        channel.close()
