//go:build lockstep_bugs

package migration

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
)

// With AdoptWithoutCensus planted, a receiver whose flag says combined
// adopts a new-mode lock and its census entry does not show it: what
// TestAdopt_RefusesAFlagNotNewAndBadTokens and the census counts of
// TestShare_HandsANewLockBetweenMigrationLockers refuse.
func TestAdopt_AdoptWithoutCensusIsCaught(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s, _ := newPhaseNew(t)
		giver := newProcess(t, s, "giver", flagOf(lockstep.ModeNew))
		o := testOptions(9)
		o.TestingKnobs = &TestingKnobs{AdoptWithoutCensus: true}
		recv, err := New(s, flagOf(lockstep.ModeCombined), withIdentity(o, &clock.Local{}, "receiver"))
		if err != nil {
			t.Fatal(err)
		}
		defer recv.Close(ctx)
		l, err := giver.Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Unlock(ctx)
		tok, err := giver.Share(l)
		if err != nil {
			t.Fatal(err)
		}
		l2, err := recv.Adopt(ctx, tok)
		if err != nil {
			t.Fatalf("planted AdoptWithoutCensus not caught: Adopt refused anyway: %v", err)
		}
		defer l2.Unlock(ctx)
		if n := recv.Entry().Held[lockstep.ModeNew]; n != 0 {
			t.Fatalf("planted AdoptWithoutCensus not caught: the census counts %d adopted locks", n)
		}
	})
}
