module github.com/lockstep-go/lockstep/adapters/openfeature

go 1.26.0

require (
	github.com/lockstep-go/lockstep v0.1.0
	github.com/open-feature/go-sdk v1.20.0
	github.com/stretchr/testify v1.12.1
)

require (
	go.uber.org/mock v0.6.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)

replace github.com/lockstep-go/lockstep => ../..
