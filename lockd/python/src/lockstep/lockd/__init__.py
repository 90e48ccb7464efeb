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

Client takes a list of lockd addresses ("host:port"): with one, a session
lives and ends with that lockd; credentials=grpc.ssl_channel_credentials(...)
for TLS and mTLS.

Fail-over. Several addresses must be lockds of one cluster (the same store
and --peer-key-file; opening refuses a lockd without a peer key with
ValueError). A session opens on the first that answers (around the list
twice), and one kept alive in the background (client.session()) moves to
another when its lockd fails, with its locks (docs/algorithms.md, section
8.8, the rules of the Go client's Options.Endpoints). It reads its
identity's peer token again after every lock, unlock, unlock_all and
set_token (one more call each). When a call or KeepAlive goes unanswered
(UNAVAILABLE, a deadline it did not set, a connection reset; each KeepAlive
is cut at half the time left) or the watch stream breaks, it opens a
session on the next lockd, adopts the token there and reads the new one:
each lock keeps its lock_id, items and fencing token (session.id,
session.endpoint and the handle at lockd change; session.moves counts the
moves); nothing is released or taken again. A lock the token did not name,
or lockd found no longer held, or whose own time ran out before the
adoption was answered, is lost (lost(lock) is true; unlock raises Lost). A
move not done within the session's TTL loses the session, as without
fail-over; a lockd that refuses the token ends it at once, except that a
token none of whose locks is still held (REASON_UNKNOWN_TOKEN: they were
unlocked as the move began) is no refusal: the move goes on with nothing
adopted, and the locks it named that the session still counted are lost. A
lock is handed out only with a peer token naming it (handout.py): a lock
call answered by the old lockd after the move began, or whose GetToken went
unanswered, gives the lock back there and raises Unavailable (lock again),
so no lock the caller received is one a move could not carry. A lockd only
cut off keeps its share of the
locks until its old session lapses: a lock unlocked after the move is free
only then. Locks taken after a move are named "<handle>@<moves>".
client.session(on_move=f) calls f(move) once per move, on the session's
background thread (return quickly; do not call the session from it): a
failover.Move with from_endpoint, to_endpoint (None when the move failed),
began and ended (time.monotonic(): when the session noticed its lockd had
failed, and when the move finished or failed), kept and lost (the locks the
move kept and lost) and error (why a failed move lost the session, else
None).
A lockd shut down gracefully tells its sessions DRAINING: a session given
other lockds moves at once, with its locks, and closes the session it left
there, which releases nothing (section 8.8, "Draining").

Seed 003's extras: lock(..., comment="...") names the unit of work in
deadlock cycles; a Lock chosen to break a cycle of waits raises Deadlock,
whose cycle lists the waits (process, waited id, holder, comment);
session.unlock_all() releases every lock of the session; an id ending in
"/*" ("orders/*") is a mask: every child of "orders", taken as "orders";
lock(..., flat=True, no_mask=True) declares the ids one name each and no
mask (seed 003's query without HIERARCHY and MASK), refused with
InvalidRequest where lockd reads them otherwise; a HeldLock's reentrant is
seed 003's ALREADY_LOCKED.
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
