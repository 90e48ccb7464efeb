package clock

import (
	"testing"
	"testing/synctest"
	"time"
)

// A wall-clock step back is simulated by a last value ahead of the wall clock.
func TestLocal_AbsorbsWallClockStepBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c Local
		ahead := time.Now().Add(10 * time.Second).UnixMicro()
		c.last.Store(ahead)
		if got := c.Now(); got != ahead {
			t.Fatalf("Now() = %d after a step back, want the last value %d", got, ahead)
		}
		time.Sleep(11 * time.Second)
		if got, want := c.Now(), time.Now().UnixMicro(); got != want {
			t.Fatalf("Now() = %d once the wall clock caught up, want %d", got, want)
		}
	})
}
