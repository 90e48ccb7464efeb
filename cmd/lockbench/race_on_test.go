//go:build race

package main

// raceEnabled: the race detector randomizes the scheduler, so runs on
// virtual time whose goroutines ready several others at once (the scale
// scenario's loops on one Locker) are not reproducible under it.
const raceEnabled = true
