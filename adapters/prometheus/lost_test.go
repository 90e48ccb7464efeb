package prometheus_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// A real lease loss: the store starts failing every request while a queue
// lock is held; renewals fail, the lease is declared lost, and the Unlock
// reports it. The counters say so. That Unlock's deletes failed too (the
// store is still failing), so Close, with the store back, releases the cells
// again: a second release event, which succeeds.
func TestObserver_CountsARealLeaseLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store, err := model.NewFaulty(model.New(&clock.Local{}), model.FaultConfig{FailBefore: 1})
		require.NoError(t, err)
		store.SetEnabled(false)
		obs, reg := newObserver(t, nil)
		l, err := queuelock.New(store, &queuelock.Options{TTL: 6 * time.Second, Renew: time.Second, Observer: obs})
		require.NoError(t, err)
		held, err := l.Lock(ctx, "invoice/9")
		require.NoError(t, err)
		store.SetEnabled(true)
		select {
		case <-held.Lost():
		case <-time.After(time.Minute): // virtual time
			t.Fatal("lease not lost within a minute of failing renewals")
		}
		require.ErrorIs(t, held.Unlock(ctx), lockstep.ErrLost)
		store.SetEnabled(false)
		require.NoError(t, l.Close(ctx))

		require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP lockstep_leases_lost_total Leases declared lost, by mode.
# TYPE lockstep_leases_lost_total counter
lockstep_leases_lost_total{mode="new"} 1
# HELP lockstep_releases_total Unlock calls that released cells or tried to, by mode and result.
# TYPE lockstep_releases_total counter
lockstep_releases_total{mode="new",result="lost"} 1
lockstep_releases_total{mode="new",result="released"} 1
`), "lockstep_leases_lost_total", "lockstep_releases_total"))
		n, err := testutil.GatherAndCount(reg, "lockstep_lease_renewals_total")
		require.NoError(t, err)
		require.Equal(t, 1, n, "only failed renewals: the store failed from the first one")
	})
}
