"""A Python client of lockd, the lockstep lock service (lockstep.v1).

    import os
    from lockstep.lockd import Client, Locked

    client = Client(["127.0.0.1:7420"], token=os.environ.get("LOCKD_TOKEN"))
    with client.session(ttl=10) as session:             # keeps itself alive
        lock = session.lock("invoice/42", timeout=5)    # blocks, at most 5 s
        try:
            ...                                         # the work the lock guards,
                                                        # checking session.lost(lock)
        finally:
            session.unlock(lock)

Client takes a list of lockd addresses ("host:port"): a session opens on
the first that answers and stays on that lockd (session.endpoint);
credentials=grpc.ssl_channel_credentials(...) for TLS and mTLS.

Seed 003's extras: lock(..., comment="...") names the unit of work in
deadlock cycles; a Lock chosen to break a cycle of waits raises Deadlock,
whose cycle lists the waits (process, waited id, holder, comment);
session.unlock_all() releases every lock of the session; an id ending in
"/*" ("orders/*") is a mask: every child of "orders", taken as "orders".
session.get_token() and other.set_token(token) are seed 003's getToken and
setToken: the other session joins this session's identity and holds its
locks (same handles and fencing tokens, nothing released); the locks are
released when the identity's last session leaves.

Errors are LockdError subclasses carrying the status code and the server's
LockError detail (reason, session, id, lost lock handles): Locked (TryLock
met a holder), Lost (the session lapsed or a lease was lost: stop the work),
Deadlock (this Lock broke a cycle of waits: release and retry the unit of
work), Refused (authentication, prefixes, another's session), Timeout (the
deadline passed while waiting), InvalidRequest, Unavailable.

The generated stubs are lockstep.v1.lockd_pb2 and lockd_pb2_grpc
(lockd/scripts/generate). Needs grpcio, grpcio-status and protobuf.
"""

from lockstep.lockd.client import Client
from lockstep.lockd.errors import (
    Deadlock,
    InvalidRequest,
    Locked,
    LockdError,
    Lost,
    Refused,
    Timeout,
    Unavailable,
)
from lockstep.lockd.session import ACCESS, Session

__all__ = [
    "ACCESS",
    "Client",
    "Deadlock",
    "InvalidRequest",
    "Locked",
    "LockdError",
    "Lost",
    "Refused",
    "Session",
    "Timeout",
    "Unavailable",
]
