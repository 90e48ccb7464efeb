//go:build !lockstep_bugs

package propertytests

// plantedBuild: see tag_planted_test.go.
const plantedBuild = false
