module github.com/lockstep-go/lockstep/cmd/lockbench

go 1.26.0

require (
	github.com/gocql/gocql v1.7.0
	github.com/lockstep-go/lockstep v0.1.0
	github.com/stretchr/testify v1.12.1
	golang.org/x/image v0.47.0
)

require (
	github.com/golang/snappy v0.0.3 // indirect
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)

replace github.com/lockstep-go/lockstep => ../..
