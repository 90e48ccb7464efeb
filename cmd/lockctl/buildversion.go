package main

// lockctlModule is the module holding this command, whose version
// `lockctl version` prints (buildinfo.Describe).
const lockctlModule = "github.com/lockstep-go/lockstep/cmd/lockctl"
