//go:build !lockstep_bugs

package election

// knobsCompiled is false outside lockstep_bugs builds: the knobs' checks are
// constant branches the compiler drops.
const knobsCompiled = false
