module github.com/lockstep-go/lockstep/robustness

go 1.26.0

replace github.com/lockstep-go/lockstep => ../

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/gocql/gocql v1.7.0
	github.com/lockstep-go/lockstep v0.1.0
	github.com/stretchr/testify v1.12.1
)

require (
	connectrpc.com/connect v1.21.1 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

require (
	github.com/golang/snappy v0.0.3 // indirect
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect
	github.com/lockstep-go/lockstep/lockd v0.1.0
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)

replace github.com/lockstep-go/lockstep/lockd => ../lockd

replace github.com/lockstep-go/lockstep/adapters/prometheus => ../adapters/prometheus
