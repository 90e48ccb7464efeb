package otel_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// A real lease loss, as in adapters/prometheus: the store fails every request
// while a queue lock is held, its renewals fail and the lease is lost.
func TestObserver_RecordsARealLeaseLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store, err := model.NewFaulty(model.New(&clock.Local{}), model.FaultConfig{FailBefore: 1})
		require.NoError(t, err)
		store.SetEnabled(false)
		obs, reader := newObserver(t, nil)
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

		got := collect(t, reader)
		metricdatatest.AssertEqual(t, sum("{lease}", "Leases declared lost.", "lockstep.lease.losses", point(1, modeNew)),
			got["lockstep.lease.losses"], metricdatatest.IgnoreTimestamp())
		renewals := got["lockstep.lease.renewals"].Data.(metricdata.Sum[int64]).DataPoints
		require.Len(t, renewals, 1)
		assert.Equal(t, attribute.NewSet(modeNew, attribute.String("lockstep.renewal.result", "failed")), renewals[0].Attributes)
		assert.Positive(t, renewals[0].Value)
	})
}
