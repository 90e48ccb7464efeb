package shadow

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/model"
)

// The legacy rows are a frozen format shared with processes running the
// legacy code: this pins every write of a Lock held past one renewal, an
// Unlock and a TryLock, on synctest's fixed clock (2000-01-01T00:00:00Z),
// to the byte, as the code wrote before the format moved to internal/layout.
func TestShadowLock_WritesTheKnownBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		rec := &locktest.Recording{Store: model.New(&clock.Local{})}
		l, err := New(rec, &Options{TTL: 6 * time.Second, Renew: time.Second, ProcessID: "p1"})
		if err != nil {
			t.Fatal(err)
		}
		locktest.HoldOnce(t, l, "invoice/42", false, 1500*time.Millisecond) // one renewal (Renew 1s)
		locktest.HoldOnce(t, l, "invoice/42", true, 1500*time.Millisecond)
		_ = l.Close(ctx)
		rec.Expect(t, []string{
			`put legacy_shadow/invoice/42 "p1.1"= ts=946684800000000 ttl=6s`,
			`put legacy_main/invoice/42 "p1.1"= ts=946684800000001 ttl=6s`,
			`delete legacy_shadow/invoice/42 ["p1.1"] ts=946684800000002`,
			`put legacy_main/invoice/42 "p1.1"= ts=946684801000000 ttl=6s`,
			`delete legacy_main/invoice/42 ["p1.1"] ts=946684801500000`,
			`put legacy_shadow/invoice/42 "p1.2"= ts=946684801500001 ttl=6s`,
			`put legacy_main/invoice/42 "p1.2"= ts=946684801500002 ttl=6s`,
			`delete legacy_shadow/invoice/42 ["p1.2"] ts=946684801500003`,
			`put legacy_main/invoice/42 "p1.2"= ts=946684802500000 ttl=6s`,
			`delete legacy_main/invoice/42 ["p1.2"] ts=946684803000000`,
		})
	})
}
