//go:build lockstep_bugs

package election

// knobsCompiled is true in lockstep_bugs builds: the knobs take effect.
const knobsCompiled = true
