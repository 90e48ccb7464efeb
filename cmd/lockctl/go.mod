module github.com/lockstep-go/lockstep/cmd/lockctl

go 1.26.0

replace github.com/lockstep-go/lockstep => ../..

require (
	github.com/gocql/gocql v1.7.0
	github.com/lockstep-go/lockstep v0.1.0
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/golang/snappy v0.0.3 // indirect
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)
