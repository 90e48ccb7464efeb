"""The errors lockd returns, as LockdError subclasses."""

import grpc
from grpc_status import rpc_status

from lockstep.v1 import lockd_pb2 as pb


class LockdError(Exception):
    """An error lockd returned: code (grpc.StatusCode), reason (the
    LockError.Reason name, e.g. "REASON_LOCKED") and detail (the LockError,
    or None)."""

    def __init__(self, code, message, detail):
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message
        self.detail = detail
        self.reason = pb.LockError.Reason.Name(detail.reason) if detail else None


class Locked(LockdError):
    """TryLock met a holder (FAILED_PRECONDITION, REASON_LOCKED)."""


class Lost(LockdError):
    """The lock or the whole session was lost: stop the work. ABORTED
    (REASON_LOST: a lease; REASON_SESSION_EXPIRED: the session lapsed), or
    NOT_FOUND with REASON_UNKNOWN_SESSION: lockd does not know the session
    (restarted since it was opened, or never opened it), so whatever it held
    there is gone."""


class Deadlock(LockdError):
    """This Lock was chosen to break a cycle of waits (ABORTED,
    REASON_DEADLOCK) and released what it took. cycle lists the waits, this
    one first: each a DeadlockMember (process, waits.id, held_by, comment).
    Release what the unit of work holds (Session.unlock_all) and retry it."""

    @property
    def cycle(self):
        return list(self.detail.cycle) if self.detail else []


class Refused(LockdError):
    """Unauthenticated, or not permitted (no prefix, another's session)."""


class Timeout(LockdError):
    """The call's deadline passed while it waited; nothing is held."""


class InvalidRequest(LockdError):
    """Bad input (INVALID_ARGUMENT) or an unknown lock (NOT_FOUND)."""


class Unavailable(LockdError):
    """The store or the server is unavailable, or shutting down."""


_BY_CODE = {
    grpc.StatusCode.ABORTED: Lost,
    grpc.StatusCode.UNAUTHENTICATED: Refused,
    grpc.StatusCode.PERMISSION_DENIED: Refused,
    grpc.StatusCode.DEADLINE_EXCEEDED: Timeout,
    grpc.StatusCode.INVALID_ARGUMENT: InvalidRequest,
    grpc.StatusCode.NOT_FOUND: InvalidRequest,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
}


def from_rpc_error(err):
    """Converts a grpc.RpcError into the matching LockdError."""
    detail = None
    status = rpc_status.from_call(err)
    if status is not None:
        for any_ in status.details:
            if any_.Is(pb.LockError.DESCRIPTOR):
                detail = pb.LockError()
                any_.Unpack(detail)
    cls = _BY_CODE.get(err.code(), LockdError)
    if err.code() == grpc.StatusCode.FAILED_PRECONDITION and detail and detail.reason == pb.LockError.REASON_LOCKED:
        cls = Locked
    if err.code() == grpc.StatusCode.ABORTED and detail and detail.reason == pb.LockError.REASON_DEADLOCK:
        cls = Deadlock
    if detail and detail.reason == pb.LockError.REASON_UNKNOWN_SESSION:
        cls = Lost
    return cls(err.code(), err.details(), detail)
