//go:build lockstep_bugs

package migration

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/lockstep-go/lockstep"
)

// With DrainSkipsRecheck planted the Controller trusts the drain's last
// census read: the process that took a legacy lock between that read and
// the intent is committed past, and phase new stands beside a legacy lock
// with Lost() open — what the census read after the intent prevents
// (TestController_AProcessEnteringAForbiddenModeDuringTheDrainMakesTheMoveRevert).
func TestController_DrainSkipsRecheckCommitsPastALegacyHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		held := make(chan lockstep.Lock, 1)
		_, c, _, _ := forbiddenEntry(t, 0, held, &TestingKnobs{DrainSkipsRecheck: true})
		err := c.Set(ctx, lockstep.ModeNew)
		h := <-held
		p, _ := c.Get(ctx)
		select {
		case <-h.Lost():
			t.Fatalf("the legacy lock was lost (Set %v, phase %v): the defect did not show", err, p)
		default:
		}
		if err != nil || p != (Phase{Mode: lockstep.ModeNew}) {
			t.Fatalf("with the defect planted Set(new) = %v, phase %v; want the move committed past the legacy holder", err, p)
		}
		t.Logf("defect planted: phase %v committed while %s holds a legacy lock", p, h.Owner())
		_ = h.Unlock(ctx)
	})
}
