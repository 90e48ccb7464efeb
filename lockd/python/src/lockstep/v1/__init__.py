"""The generated protobuf and gRPC stubs of lockd's API, lockstep.v1
(lockd_pb2, lockd_pb2_grpc): lockd/scripts/generate writes them from
lockd/proto/lockstep/v1/lockd.proto; do not edit them by hand."""
