module github.com/lockstep-go/lockstep/cmd/lockbench/lockdpeer

go 1.26.0

replace (
	github.com/lockstep-go/lockstep => ../../..
	github.com/lockstep-go/lockstep/cmd/lockbench => ..
	github.com/lockstep-go/lockstep/lockd => ../../../lockd
)

require (
	connectrpc.com/connect v1.21.1
	github.com/lockstep-go/lockstep v0.1.0
	github.com/lockstep-go/lockstep/cmd/lockbench v0.1.0
	github.com/lockstep-go/lockstep/lockd v0.1.0
	google.golang.org/protobuf v1.36.12
)

require (
	connectrpc.com/authn v0.2.0 // indirect
	connectrpc.com/grpchealth v1.5.0 // indirect
	connectrpc.com/grpcreflect v1.3.1 // indirect
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.72.0 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

replace github.com/lockstep-go/lockstep/adapters/prometheus => ../../../adapters/prometheus
