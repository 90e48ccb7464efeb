module github.com/lockstep-go/lockstep/cmd/lockbench/lockdpeer

go 1.26.0

replace (
	github.com/lockstep-go/lockstep => ../../..
	github.com/lockstep-go/lockstep/cmd/lockbench => ..
	github.com/lockstep-go/lockstep/lockd => ../../../lockd
)

require (
	connectrpc.com/connect v1.21.1
	github.com/lockstep-go/lockstep v0.0.0-00010101000000-000000000000
	github.com/lockstep-go/lockstep/cmd/lockbench v0.0.0-00010101000000-000000000000
	github.com/lockstep-go/lockstep/lockd v0.0.0-00010101000000-000000000000
	google.golang.org/protobuf v1.36.12
)

require connectrpc.com/grpchealth v1.5.0 // indirect
