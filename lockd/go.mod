module github.com/lockstep-go/lockstep/lockd

go 1.26.0

replace github.com/lockstep-go/lockstep => ../

tool (
	connectrpc.com/connect/cmd/protoc-gen-connect-go
	google.golang.org/protobuf/cmd/protoc-gen-go
)

require (
	connectrpc.com/connect v1.21.1
	connectrpc.com/grpchealth v1.5.0
	github.com/gocql/gocql v1.7.0
	github.com/lockstep-go/lockstep v0.0.0-00010101000000-000000000000
	github.com/spf13/pflag v1.0.9
	github.com/stretchr/testify v1.12.1
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/golang/snappy v0.0.3 // indirect
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)
