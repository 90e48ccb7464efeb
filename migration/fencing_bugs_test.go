//go:build lockstep_bugs

package migration

import (
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/fencing"
	"github.com/lockstep-go/lockstep/locktest"
)

// With UncheckedToken planted (the draw unchecked against the lease) a holder whose
// draw outlived its lease returns a lock, beside its successor, with a
// token below the successor's, in every mode: TestMigration_Fencing fails.
func TestMigration_UncheckedTokenIsCaught(t *testing.T) {
	k := &TestingKnobs{Fencing: &fencing.TestingKnobs{UncheckedToken: true}}
	t.Run("legacy", func(t *testing.T) { locktest.ExpectUncheckedTokenCaught(t, fencingEnvWith(k, lockstep.ModeLegacy)) })
	t.Run("combined", func(t *testing.T) {
		locktest.ExpectUncheckedTokenCaught(t, fencingEnvWith(k, lockstep.ModeCombined, lockstep.ModeCombined))
	})
	t.Run("new", func(t *testing.T) {
		locktest.ExpectUncheckedTokenCaught(t, fencingEnvWith(k, lockstep.ModeNew, lockstep.ModeCombined, lockstep.ModeNew))
	})
}
