//go:build !lockstep_bugs

package main

// defectsBuild: see defects_bugs.go.
const defectsBuild = false
