"""lockstep: the Python side of the lockstep lock service.

lockstep.lockd is the client of lockd, the lock manager served over the
network; lockstep.v1 holds the protobuf and gRPC stubs of its API,
lockstep.v1 (generated from lockd/proto/lockstep/v1/lockd.proto by
lockd/scripts/generate).
"""
