//go:build lockstep_bugs

package main

// defectsBuild reports whether --plant may switch a defect on: only in a
// worker built with -tags lockstep_bugs.
const defectsBuild = true
