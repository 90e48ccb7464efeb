"""Client: the connection to lockd, and the calls that name no session."""

import grpc
from google.protobuf import duration_pb2

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
    return endpoints


class Client:
    """A connection to lockd. endpoints is a list of lockd addresses
    ("host:port"; a single string is taken as a list of one); sessions are
    opened on the first. credentials, when given, are grpc channel
    credentials (TLS, with a client certificate for mTLS); token is a bearer
    token sent with every call. Safe for concurrent use by several threads."""

    def __init__(self, endpoints, token=None, credentials=None):
        self.endpoints = _endpoints(endpoints)
        target = self.endpoints[0]
        if credentials is not None:
            self._channel = grpc.secure_channel(target, credentials)
        else:
            self._channel = grpc.insecure_channel(target)
        self._stub = lockd_pb2_grpc.LockServiceStub(self._channel)
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()

    def call(self, method, request, timeout=None):
        """Calls method (a LockService method's name) with request; raises
        the matching LockdError."""
        try:
            return getattr(self._stub, method)(request, timeout=timeout, metadata=self._metadata)
        except grpc.RpcError as err:
            raise from_rpc_error(err) from None

    def open_session(self, ttl=None, name=""):
        """Opens a session; ttl in seconds (None: the server's default)."""
        req = pb.OpenSessionRequest(name=name)
        if ttl is not None:
            req.ttl.CopyFrom(duration_pb2.Duration(seconds=int(ttl), nanos=int((ttl % 1) * 1e9)))
        res = self.call("OpenSession", req)
        return Session(self, res.session_id, res.ttl.ToTimedelta().total_seconds())

    def session(self, ttl=None, name=""):
        """A session that keeps itself alive until closed (a context manager)."""
        s = self.open_session(ttl, name)
        s.keep_alive_in_background()
        return s

    def list_sessions(self):
        """Every live session of this lockd (DescribeSessionResponse each):
        for a principal granted list_sessions; Refused otherwise."""
        return list(self.call("ListSessions", pb.ListSessionsRequest()).sessions)

    def close(self):
        self._channel.close()
