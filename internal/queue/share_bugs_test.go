//go:build lockstep_bugs

package queue

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// With AdoptWithoutWitness planted, Adopt of a token whose lock was
// released succeeds, and so does a third process's Lock: two holders. The
// shipped Adopt refuses it (TestQueueLock_ShareAndAdoptRefusals).
func TestQueueLock_AdoptWithoutWitnessIsCaught(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		giver, third := newLocker(t, s, nil), newLocker(t, s, nil)
		receiver := newPlanted(t, s, nil, &TestingKnobs{AdoptWithoutWitness: true})
		l, _ := giver.Lock(ctx, "a")
		tok, err := giver.Share(l)
		if err != nil {
			t.Fatal(err)
		}
		_ = l.Unlock(ctx)
		l3, err := third.TryLock(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		defer l3.Unlock(ctx)
		if _, err := receiver.Adopt(ctx, tok); err != nil {
			t.Fatalf("AdoptWithoutWitness planted, yet Adopt of a released lock was refused: %v", err)
		}
		var _ lockstep.Lock = l3
	})
}
