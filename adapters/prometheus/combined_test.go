package prometheus_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

// A combined acquisition takes two locks but is one acquisition: the
// Observer, shared by the Locker's three algorithms, counts it once, in mode
// combined, and the renewals of both its leases (queue and legacy) in mode combined
// too, so a combined lock's renewals count twice per period.
func TestObserver_CombinedLockCountsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store := model.New(&clock.Local{})
		ctl, err := migration.NewController(store, nil)
		require.NoError(t, err)
		require.NoError(t, ctl.Set(ctx, lockstep.ModeCombined))
		obs, reg := newObserver(t, nil)
		l, err := migration.New(store, migration.Static(lockstep.ModeCombined), &migration.Options{ProcessID: "c", Observer: obs})
		require.NoError(t, err)
		held, err := l.Lock(ctx, "invoice/7")
		require.NoError(t, err)
		time.Sleep(25 * time.Second) // virtual time: several renewals of both halves
		require.NoError(t, held.Unlock(ctx))
		require.NoError(t, l.Close(ctx))

		require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP lockstep_acquisitions_total Lock and TryLock calls that finished, by mode, call and result.
# TYPE lockstep_acquisitions_total counter
lockstep_acquisitions_total{call="lock",mode="combined",result="acquired"} 1
# HELP lockstep_releases_total Unlock calls that released cells or tried to, by mode and result.
# TYPE lockstep_releases_total counter
lockstep_releases_total{mode="combined",result="released"} 1
`), "lockstep_acquisitions_total", "lockstep_releases_total"))
		// Both halves' leases renew and report mode combined.
		mfs, err := reg.Gather()
		require.NoError(t, err)
		var renewals []*dto.Metric
		for _, mf := range mfs {
			if mf.GetName() == "lockstep_lease_renewals_total" {
				renewals = mf.GetMetric()
			}
		}
		require.Len(t, renewals, 1)
		labels := map[string]string{}
		for _, lp := range renewals[0].GetLabel() {
			labels[lp.GetName()] = lp.GetValue()
		}
		require.Equal(t, map[string]string{"mode": "combined", "result": "renewed"}, labels)
		require.GreaterOrEqual(t, renewals[0].GetCounter().GetValue(), 2.0)
	})
}
