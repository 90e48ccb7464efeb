package main

// lockdModule is the module holding this command, whose version
// `lockd --version` prints (buildinfo.Describe).
const lockdModule = "github.com/lockstep-go/lockstep/lockd"
