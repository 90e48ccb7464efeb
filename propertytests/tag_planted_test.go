//go:build lockstep_bugs

package propertytests

// plantedBuild reports whether this is the negative controls' build (-tags
// lockstep_bugs): only there do the controls that switch a planted defect on
// run, at the depth CI's model-negative stage gives them, and the
// regressions replay with their defect too. The plain unit run leaves them
// to that stage, which would otherwise run them twice.
const plantedBuild = true
