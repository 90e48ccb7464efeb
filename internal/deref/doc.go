// Package deref holds the rule every constructor of this module applies to
// its pointer arguments of options and testing knobs: nil means every
// default, the zero value. It imports nothing.
package deref
