//go:build !lockstep_bugs

package bugs

import "context"

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

// With returns ctx unchanged: no defect is compiled in.
func With(ctx context.Context, _ Set) context.Context { return ctx }

// From returns no defect, without looking at ctx.
func From(context.Context) Set { return Set{} }
