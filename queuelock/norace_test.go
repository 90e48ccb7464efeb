//go:build !race

package queuelock

const raceEnabled = false
