package prometheus_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	lockprom "github.com/lockstep-go/lockstep/adapters/prometheus"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

func newObserver(t testing.TB, opts *lockprom.Options) (*lockprom.Observer, *prom.Registry) {
	t.Helper()
	obs, err := lockprom.New(opts)
	require.NoError(t, err)
	reg := prom.NewPedanticRegistry()
	require.NoError(t, reg.Register(obs))
	return obs, reg
}

// Synthetic events map onto exactly the series and values the package
// documentation lists.
func TestObserver_EventsBecomeTheDocumentedSeries(t *testing.T) {
	obs, reg := newObserver(t, &lockprom.Options{WaitBuckets: []float64{0.1, 1}, HoldBuckets: []float64{1, 10}, RequestBuckets: []float64{2, 8}})
	ctx := context.Background()
	refusal := &migration.ModeError{ID: "a", Process: "p", Configured: lockstep.ModeLegacy,
		Phase: migration.Phase{Mode: lockstep.ModeCombined, Target: lockstep.ModeNew}}
	obs.ObserveAcquire(ctx, lockstep.AcquireEvent{ID: "a", Owner: "p.1", Mode: lockstep.ModeNew, Acquired: true, Wait: 50 * time.Millisecond, Requests: 3})
	obs.ObserveAcquire(ctx, lockstep.AcquireEvent{ID: "a", Owner: "p.2", Mode: lockstep.ModeNew, Acquired: true, Wait: 500 * time.Millisecond, Requests: 9})
	obs.ObserveAcquire(ctx, lockstep.AcquireEvent{ID: "a", Mode: lockstep.ModeNew, Try: true, Err: fmt.Errorf("x: %w", lockstep.ErrLocked), Wait: time.Millisecond, Requests: 2})
	obs.ObserveAcquire(ctx, lockstep.AcquireEvent{ID: "a", Mode: lockstep.ModeLegacy, Err: refusal, Wait: 2 * time.Second})
	obs.ObserveAcquire(ctx, lockstep.AcquireEvent{ID: "a", Mode: lockstep.ModeUnknown, Err: errors.New("migration: mode flag: down")})
	obs.ObserveRelease(ctx, lockstep.ReleaseEvent{ID: "a", Owner: "p.1", Mode: lockstep.ModeNew, Held: 5 * time.Second})
	obs.ObserveRelease(ctx, lockstep.ReleaseEvent{ID: "a", Owner: "p.2", Mode: lockstep.ModeNew, Held: 20 * time.Second, WasLost: true, Err: lockstep.ErrLost})
	obs.ObserveLease(ctx, lockstep.LeaseEvent{ID: "a", Mode: lockstep.ModeCombined, Renewed: true})
	obs.ObserveLease(ctx, lockstep.LeaseEvent{ID: "a", Mode: lockstep.ModeCombined, Renewed: true})
	obs.ObserveLease(ctx, lockstep.LeaseEvent{ID: "a", Mode: lockstep.ModeCombined, Err: errors.New("timeout")})
	obs.ObserveLease(ctx, lockstep.LeaseEvent{ID: "a", Mode: lockstep.ModeCombined, Lost: true})
	obs.ObserveWake(ctx, lockstep.WakeEvent{Blocked: true, Missed: 2})
	obs.ObserveWake(ctx, lockstep.WakeEvent{})

	const want = `
# HELP lockstep_acquisitions_total Lock and TryLock calls that finished, by mode, call and result.
# TYPE lockstep_acquisitions_total counter
lockstep_acquisitions_total{call="lock",mode="legacy",result="refused"} 1
lockstep_acquisitions_total{call="lock",mode="new",result="acquired"} 2
lockstep_acquisitions_total{call="lock",mode="unknown",result="flag_error"} 1
lockstep_acquisitions_total{call="try_lock",mode="new",result="not_acquired"} 1
# HELP lockstep_acquire_wait_seconds Time from a Lock or TryLock call to its return, by mode and outcome.
# TYPE lockstep_acquire_wait_seconds histogram
lockstep_acquire_wait_seconds_bucket{mode="legacy",outcome="failed",le="0.1"} 0
lockstep_acquire_wait_seconds_bucket{mode="legacy",outcome="failed",le="1"} 0
lockstep_acquire_wait_seconds_bucket{mode="legacy",outcome="failed",le="+Inf"} 1
lockstep_acquire_wait_seconds_sum{mode="legacy",outcome="failed"} 2
lockstep_acquire_wait_seconds_count{mode="legacy",outcome="failed"} 1
lockstep_acquire_wait_seconds_bucket{mode="new",outcome="acquired",le="0.1"} 1
lockstep_acquire_wait_seconds_bucket{mode="new",outcome="acquired",le="1"} 2
lockstep_acquire_wait_seconds_bucket{mode="new",outcome="acquired",le="+Inf"} 2
lockstep_acquire_wait_seconds_sum{mode="new",outcome="acquired"} 0.55
lockstep_acquire_wait_seconds_count{mode="new",outcome="acquired"} 2
lockstep_acquire_wait_seconds_bucket{mode="new",outcome="not_acquired",le="0.1"} 1
lockstep_acquire_wait_seconds_bucket{mode="new",outcome="not_acquired",le="1"} 1
lockstep_acquire_wait_seconds_bucket{mode="new",outcome="not_acquired",le="+Inf"} 1
lockstep_acquire_wait_seconds_sum{mode="new",outcome="not_acquired"} 0.001
lockstep_acquire_wait_seconds_count{mode="new",outcome="not_acquired"} 1
lockstep_acquire_wait_seconds_bucket{mode="unknown",outcome="failed",le="0.1"} 1
lockstep_acquire_wait_seconds_bucket{mode="unknown",outcome="failed",le="1"} 1
lockstep_acquire_wait_seconds_bucket{mode="unknown",outcome="failed",le="+Inf"} 1
lockstep_acquire_wait_seconds_sum{mode="unknown",outcome="failed"} 0
lockstep_acquire_wait_seconds_count{mode="unknown",outcome="failed"} 1
# HELP lockstep_acquire_store_requests Store requests one acquisition made in sequence, by mode.
# TYPE lockstep_acquire_store_requests histogram
lockstep_acquire_store_requests_bucket{mode="new",le="2"} 1
lockstep_acquire_store_requests_bucket{mode="new",le="8"} 2
lockstep_acquire_store_requests_bucket{mode="new",le="+Inf"} 3
lockstep_acquire_store_requests_sum{mode="new"} 14
lockstep_acquire_store_requests_count{mode="new"} 3
# HELP lockstep_mode_refusals_total Acquisitions refused because the fleet phase forbids the flag's mode, by that mode and the phase.
# TYPE lockstep_mode_refusals_total counter
lockstep_mode_refusals_total{mode="legacy",phase="pending:combined->new"} 1
# HELP lockstep_releases_total Unlock calls that released cells or tried to, by mode and result.
# TYPE lockstep_releases_total counter
lockstep_releases_total{mode="new",result="lost"} 1
lockstep_releases_total{mode="new",result="released"} 1
# HELP lockstep_hold_seconds Time from acquisition to release, by mode.
# TYPE lockstep_hold_seconds histogram
lockstep_hold_seconds_bucket{mode="new",le="1"} 0
lockstep_hold_seconds_bucket{mode="new",le="10"} 1
lockstep_hold_seconds_bucket{mode="new",le="+Inf"} 2
lockstep_hold_seconds_sum{mode="new"} 25
lockstep_hold_seconds_count{mode="new"} 2
# HELP lockstep_lease_renewals_total Lease renewal attempts, by mode and result.
# TYPE lockstep_lease_renewals_total counter
lockstep_lease_renewals_total{mode="combined",result="failed"} 1
lockstep_lease_renewals_total{mode="combined",result="renewed"} 2
# HELP lockstep_leases_lost_total Leases declared lost, by mode.
# TYPE lockstep_leases_lost_total counter
lockstep_leases_lost_total{mode="combined"} 1
# HELP lockstep_wakeup_changes_total Times a queue Locker with wake-ups stopped relying on them (state=blocked: handoffs in a row came without theirs) or relied on them again (state=arriving).
# TYPE lockstep_wakeup_changes_total counter
lockstep_wakeup_changes_total{state="arriving"} 1
lockstep_wakeup_changes_total{state="blocked"} 1
`
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want)))
}

// Every metric passes promlint, the Prometheus project's own checks of the
// naming conventions (units, _total, base units, help text).
func TestObserver_MetricsPassPromlint(t *testing.T) {
	obs, reg := newObserver(t, nil)
	exercise(obs)
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	assert.Empty(t, problems)
	n, err := testutil.GatherAndCount(reg)
	require.NoError(t, err)
	assert.Greater(t, n, 0, "exercise produced no series")
}

// No label value ever carries a lock id, an owner or an error text.
func TestObserver_NeverExportsIDsOwnersOrErrorTexts(t *testing.T) {
	obs, reg := newObserver(t, nil)
	exercise(obs)
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				for _, secret := range []string{"invoice", "owner-", "cassandra says"} {
					assert.NotContains(t, lp.GetValue(), secret, "metric %s label %s", mf.GetName(), lp.GetName())
				}
			}
		}
	}
}

// exercise sends one event of every kind, carrying ids, owners and error
// texts no metric may export.
func exercise(obs lockstep.Observer) {
	ctx := context.Background()
	for _, m := range []lockstep.Mode{lockstep.ModeLegacy, lockstep.ModeCombined, lockstep.ModeNew} {
		id := "invoice/" + m.String()
		obs.ObserveAcquire(ctx, lockstep.AcquireEvent{ID: id, Owner: "owner-1", Mode: m, Acquired: true, Wait: time.Millisecond, Requests: 2})
		obs.ObserveAcquire(ctx, lockstep.AcquireEvent{ID: id, Mode: m, Try: true, Err: fmt.Errorf("cassandra says: %w", lockstep.ErrLocked)})
		obs.ObserveAcquire(ctx, lockstep.AcquireEvent{ID: id, Mode: m, Err: errors.New("cassandra says no")})
		obs.ObserveAcquire(ctx, lockstep.AcquireEvent{ID: id, Mode: m, Err: &migration.ModeError{ID: id, Configured: m, Phase: migration.Phase{Mode: lockstep.ModeNew}}})
		obs.ObserveRelease(ctx, lockstep.ReleaseEvent{ID: id, Owner: "owner-1", Mode: m, Held: time.Second})
		obs.ObserveLease(ctx, lockstep.LeaseEvent{ID: id, Owner: "owner-1", Mode: m, Renewed: true})
		obs.ObserveLease(ctx, lockstep.LeaseEvent{ID: id, Owner: "owner-1", Mode: m, Err: errors.New("cassandra says timeout")})
		obs.ObserveLease(ctx, lockstep.LeaseEvent{ID: id, Owner: "owner-1", Mode: m, Lost: true})
	}
}

func TestNew_RefusesBadOptionsSayingWhich(t *testing.T) {
	_, err := lockprom.New(&lockprom.Options{Namespace: "lock-step"})
	require.ErrorContains(t, err, "Namespace")
	_, err = lockprom.New(&lockprom.Options{WaitBuckets: []float64{1, 0.5}})
	require.ErrorContains(t, err, "WaitBuckets must be strictly increasing")
	_, err = lockprom.New(&lockprom.Options{ConstLabels: prom.Labels{"mode": "x"}})
	require.ErrorContains(t, err, "ConstLabels")
	obs, err := lockprom.New(&lockprom.Options{Namespace: "billing_locks", ConstLabels: prom.Labels{"service": "billing"}})
	require.NoError(t, err)
	obs.ObserveAcquire(context.Background(), lockstep.AcquireEvent{Mode: lockstep.ModeNew, Acquired: true})
	require.NoError(t, testutil.CollectAndCompare(obs, strings.NewReader(`
# HELP billing_locks_acquisitions_total Lock and TryLock calls that finished, by mode, call and result.
# TYPE billing_locks_acquisitions_total counter
billing_locks_acquisitions_total{call="lock",mode="new",result="acquired",service="billing"} 1
`), "billing_locks_acquisitions_total"))
}

// A real fleet on the model store: a process in mode new takes and releases a
// lock, a second one's TryLock meets it, and a third configured legacy is
// refused by phase new. The counters say exactly that.
func TestObserver_CountsARealMigrationLocker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store := model.New(&clock.Local{})
		ctl, err := migration.NewController(store, nil)
		require.NoError(t, err)
		require.NoError(t, ctl.Set(ctx, lockstep.ModeCombined))
		require.NoError(t, ctl.Set(ctx, lockstep.ModeNew))

		obs, reg := newObserver(t, nil)
		process := func(name string, m lockstep.Mode) *migration.Locker {
			l, err := migration.New(store, migration.Static(m), &migration.Options{ProcessID: name, Observer: obs})
			require.NoError(t, err)
			return l
		}
		a, b, old := process("a", lockstep.ModeNew), process("b", lockstep.ModeNew), process("old", lockstep.ModeLegacy)

		held, err := a.Lock(ctx, "invoice/42")
		require.NoError(t, err)
		_, err = b.TryLock(ctx, "invoice/42")
		require.ErrorIs(t, err, lockstep.ErrLocked)
		_, err = old.Lock(ctx, "invoice/42")
		require.ErrorIs(t, err, lockstep.ErrIncompatibleMode)
		time.Sleep(3 * time.Second) // virtual time: the hold lasts 3s
		require.NoError(t, held.Unlock(ctx))
		for _, l := range []*migration.Locker{a, b, old} {
			require.NoError(t, l.Close(ctx))
		}

		require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP lockstep_acquisitions_total Lock and TryLock calls that finished, by mode, call and result.
# TYPE lockstep_acquisitions_total counter
lockstep_acquisitions_total{call="lock",mode="legacy",result="refused"} 1
lockstep_acquisitions_total{call="lock",mode="new",result="acquired"} 1
lockstep_acquisitions_total{call="try_lock",mode="new",result="not_acquired"} 1
# HELP lockstep_mode_refusals_total Acquisitions refused because the fleet phase forbids the flag's mode, by that mode and the phase.
# TYPE lockstep_mode_refusals_total counter
lockstep_mode_refusals_total{mode="legacy",phase="new"} 1
# HELP lockstep_releases_total Unlock calls that released cells or tried to, by mode and result.
# TYPE lockstep_releases_total counter
lockstep_releases_total{mode="new",result="released"} 1
`), "lockstep_acquisitions_total", "lockstep_mode_refusals_total", "lockstep_releases_total"))

		mfs, err := reg.Gather()
		require.NoError(t, err)
		for _, mf := range mfs {
			switch mf.GetName() {
			case "lockstep_hold_seconds":
				h := mf.GetMetric()[0].GetHistogram()
				assert.Equal(t, uint64(1), h.GetSampleCount())
				assert.InDelta(t, 3.0, h.GetSampleSum(), 0.001)
			case "lockstep_acquire_store_requests":
				for _, m := range mf.GetMetric() {
					assert.Positive(t, m.GetHistogram().GetSampleSum(), "an acquisition through the queue reaches the store")
				}
			}
		}
	})
}

// BenchmarkObserveAcquire is one successful acquisition's event, after the
// first (which resolves the series).
func BenchmarkObserveAcquire(b *testing.B) {
	obs, _ := newObserver(b, nil)
	ctx := context.Background()
	e := lockstep.AcquireEvent{ID: "invoice/42", Owner: "p.1", Mode: lockstep.ModeNew, Acquired: true, Wait: 3 * time.Millisecond, Requests: 4}
	obs.ObserveAcquire(ctx, e)
	b.ReportAllocs()
	for b.Loop() {
		obs.ObserveAcquire(ctx, e)
	}
}

// BenchmarkObserveAcquireRefused is a refusal: an errors.Is walk and the
// refusal counter besides.
func BenchmarkObserveAcquireRefused(b *testing.B) {
	obs, _ := newObserver(b, nil)
	ctx := context.Background()
	e := lockstep.AcquireEvent{ID: "invoice/42", Mode: lockstep.ModeLegacy,
		Err: fmt.Errorf("wrapped: %w", &migration.ModeError{Configured: lockstep.ModeLegacy, Phase: migration.Phase{Mode: lockstep.ModeNew}})}
	obs.ObserveAcquire(ctx, e)
	b.ReportAllocs()
	for b.Loop() {
		obs.ObserveAcquire(ctx, e)
	}
}
