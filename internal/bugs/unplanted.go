//go:build !lockstep_bugs

package bugs

// Compiled reports whether planted defects are compiled in: false in every
// build without the lockstep_bugs tag, so Planted is a constant false and
// the defects' code paths are dead code.
const Compiled = false

// Plant panics: planting a defect needs a build with -tags lockstep_bugs.
func Plant(d Defect) (undo func()) {
	panic("bugs: planting " + string(d) + " needs a build with -tags lockstep_bugs")
}

// Planted reports false: no defect is compiled in.
func Planted(Defect) bool { return false }
