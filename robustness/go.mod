module github.com/lockstep-go/lockstep/robustness

go 1.26.0

replace github.com/lockstep-go/lockstep => ../
