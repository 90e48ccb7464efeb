package otel_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/lockstep-go/lockstep"
	lockotel "github.com/lockstep-go/lockstep/adapters/otel"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

func newObserver(t testing.TB, opts *lockotel.Options) (*lockotel.Observer, *sdkmetric.ManualReader) {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	obs, err := lockotel.New(mp, opts)
	require.NoError(t, err)
	return obs, reader
}

// collect reads the reader's metrics of lockotel's scope, by name.
func collect(t *testing.T, r *sdkmetric.ManualReader) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.Collect(context.Background(), &rm))
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		require.Equal(t, lockotel.ScopeName, sm.Scope.Name)
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

func sum(unit, desc, name string, points ...metricdata.DataPoint[int64]) metricdata.Metrics {
	return metricdata.Metrics{Name: name, Unit: unit, Description: desc,
		Data: metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true, DataPoints: points}}
}

func point(v int64, kv ...attribute.KeyValue) metricdata.DataPoint[int64] {
	return metricdata.DataPoint[int64]{Attributes: attribute.NewSet(kv...), Value: v}
}

var (
	modeNew      = attribute.String("lockstep.mode", "new")
	modeLegacy   = attribute.String("lockstep.mode", "legacy")
	modeCombined = attribute.String("lockstep.mode", "combined")
	modeUnknown  = attribute.String("lockstep.mode", "unknown")
	callLock     = attribute.String("lockstep.acquire.call", "lock")
	callTry      = attribute.String("lockstep.acquire.call", "try_lock")
)

func result(s string) attribute.KeyValue  { return attribute.String("lockstep.acquire.result", s) }
func errType(s string) attribute.KeyValue { return attribute.String("error.type", s) }

// Synthetic events become exactly the documented instruments, units,
// attributes and values.
func TestObserver_EventsBecomeTheDocumentedInstruments(t *testing.T) {
	obs, reader := newObserver(t, &lockotel.Options{WaitBuckets: []float64{0.1, 1}, HoldBuckets: []float64{1, 10}, RequestBuckets: []float64{2, 8}})
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

	got := collect(t, reader)
	require.Len(t, got, 9)
	opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}
	metricdatatest.AssertEqual(t, sum("{acquisition}", "Lock and TryLock calls that finished.", "lockstep.acquisitions",
		point(2, modeNew, callLock, result("acquired")),
		point(1, modeNew, callTry, result("not_acquired")),
		point(1, modeLegacy, callLock, result("refused"), errType("refused")),
		point(1, modeUnknown, callLock, result("flag_error"), errType("flag_error")),
	), got["lockstep.acquisitions"], opts...)
	metricdatatest.AssertEqual(t, sum("{acquisition}", "Acquisitions refused because the fleet phase forbids the flag's mode.", "lockstep.mode.refusals",
		point(1, modeLegacy, attribute.String("lockstep.phase", "pending:combined->new")),
	), got["lockstep.mode.refusals"], opts...)
	metricdatatest.AssertEqual(t, sum("{release}", "Unlock calls that released cells or tried to.", "lockstep.releases",
		point(1, modeNew, attribute.String("lockstep.release.result", "released")),
		point(1, modeNew, attribute.String("lockstep.release.result", "lost")),
	), got["lockstep.releases"], opts...)
	metricdatatest.AssertEqual(t, sum("{renewal}", "Lease renewal attempts.", "lockstep.lease.renewals",
		point(2, modeCombined, attribute.String("lockstep.renewal.result", "renewed")),
		point(1, modeCombined, attribute.String("lockstep.renewal.result", "failed")),
	), got["lockstep.lease.renewals"], opts...)
	metricdatatest.AssertEqual(t, sum("{lease}", "Leases declared lost.", "lockstep.lease.losses",
		point(1, modeCombined),
	), got["lockstep.lease.losses"], opts...)
	metricdatatest.AssertEqual(t, sum("{change}", "Times a queue Locker with wake-ups stopped relying on them (blocked) or relied on them again (arriving).", "lockstep.wakeup.changes",
		point(1, attribute.String("lockstep.wakeup.state", "blocked")),
		point(1, attribute.String("lockstep.wakeup.state", "arriving")),
	), got["lockstep.wakeup.changes"], opts...)

	outcome := func(s string) attribute.KeyValue { return attribute.String("lockstep.acquire.outcome", s) }
	fhist := func(count uint64, buckets []uint64, sum, lo, hi float64, kv ...attribute.KeyValue) metricdata.HistogramDataPoint[float64] {
		return metricdata.HistogramDataPoint[float64]{Attributes: attribute.NewSet(kv...), Count: count, Bounds: []float64{0.1, 1},
			BucketCounts: buckets, Sum: sum, Min: metricdata.NewExtrema(lo), Max: metricdata.NewExtrema(hi)}
	}
	wait := got["lockstep.acquire.duration"]
	assert.Equal(t, "s", wait.Unit)
	metricdatatest.AssertAggregationsEqual(t, metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality,
		DataPoints: []metricdata.HistogramDataPoint[float64]{
			fhist(2, []uint64{1, 1, 0}, 0.55, 0.05, 0.5, modeNew, outcome("acquired")),
			fhist(1, []uint64{1, 0, 0}, 0.001, 0.001, 0.001, modeNew, outcome("not_acquired")),
			fhist(1, []uint64{0, 0, 1}, 2, 2, 2, modeLegacy, outcome("failed")),
			fhist(1, []uint64{1, 0, 0}, 0, 0, 0, modeUnknown, outcome("failed")),
		}}, wait.Data, metricdatatest.IgnoreTimestamp())

	hold := got["lockstep.hold.duration"]
	assert.Equal(t, "s", hold.Unit)
	metricdatatest.AssertAggregationsEqual(t, metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality,
		DataPoints: []metricdata.HistogramDataPoint[float64]{{Attributes: attribute.NewSet(modeNew), Count: 2, Bounds: []float64{1, 10},
			BucketCounts: []uint64{0, 1, 1}, Sum: 25, Min: metricdata.NewExtrema(5.0), Max: metricdata.NewExtrema(20.0)}}}, hold.Data, metricdatatest.IgnoreTimestamp())

	req := got["lockstep.acquire.store_requests"]
	assert.Equal(t, "{request}", req.Unit)
	metricdatatest.AssertAggregationsEqual(t, metricdata.Histogram[int64]{Temporality: metricdata.CumulativeTemporality,
		DataPoints: []metricdata.HistogramDataPoint[int64]{{Attributes: attribute.NewSet(modeNew), Count: 3, Bounds: []float64{2, 8},
			BucketCounts: []uint64{1, 1, 1}, Sum: 14, Min: metricdata.NewExtrema[int64](2), Max: metricdata.NewExtrema[int64](9)}}}, req.Data, metricdatatest.IgnoreTimestamp())
}

// Options.Attributes join every measurement; no attribute ever carries a lock
// id, an owner or an error text.
func TestObserver_AttributesAreBoundedAndCarryNoIDs(t *testing.T) {
	obs, reader := newObserver(t, &lockotel.Options{Attributes: []attribute.KeyValue{attribute.String("service.component", "billing")}})
	ctx := context.Background()
	for _, m := range []lockstep.Mode{lockstep.ModeLegacy, lockstep.ModeCombined, lockstep.ModeNew, lockstep.Mode(42)} {
		id := "invoice/" + m.String()
		obs.ObserveAcquire(ctx, lockstep.AcquireEvent{ID: id, Owner: "owner-1", Mode: m, Acquired: true, Requests: 2})
		obs.ObserveAcquire(ctx, lockstep.AcquireEvent{ID: id, Mode: m, Err: errors.New("cassandra says no")})
		obs.ObserveAcquire(ctx, lockstep.AcquireEvent{ID: id, Mode: m, Err: &migration.ModeError{ID: id, Configured: m, Phase: migration.Phase{Mode: lockstep.ModeNew}}})
		obs.ObserveRelease(ctx, lockstep.ReleaseEvent{ID: id, Owner: "owner-1", Mode: m, Err: errors.New("cassandra says timeout")})
		obs.ObserveLease(ctx, lockstep.LeaseEvent{ID: id, Owner: "owner-1", Mode: m, Err: errors.New("cassandra says timeout")})
		obs.ObserveLease(ctx, lockstep.LeaseEvent{ID: id, Owner: "owner-1", Mode: m, Lost: true})
	}
	obs.ObserveWake(ctx, lockstep.WakeEvent{Blocked: true, Missed: 2})
	got := collect(t, reader)
	require.Len(t, got, 9)
	check := func(name string, attrs attribute.Set) {
		v, ok := attrs.Value("service.component")
		assert.True(t, ok && v.AsString() == "billing", "%s lacks the extra attribute", name)
		for _, kv := range attrs.ToSlice() {
			s := kv.Value.String()
			assert.False(t, strings.Contains(s, "invoice") || strings.Contains(s, "owner-") || strings.Contains(s, "cassandra"),
				"%s: attribute %s=%s leaks an id, owner or error text", name, kv.Key, s)
		}
	}
	for name, m := range got {
		switch d := m.Data.(type) {
		case metricdata.Sum[int64]:
			for _, p := range d.DataPoints {
				check(name, p.Attributes)
			}
		case metricdata.Histogram[float64]:
			for _, p := range d.DataPoints {
				check(name, p.Attributes)
			}
		case metricdata.Histogram[int64]:
			for _, p := range d.DataPoints {
				check(name, p.Attributes)
			}
		default:
			t.Fatalf("%s: unexpected aggregation %T", name, m.Data)
		}
	}
	// Mode 42 folds into unknown: 4 modes at most, whatever the events say.
	modes := map[string]bool{}
	for _, p := range got["lockstep.acquisitions"].Data.(metricdata.Sum[int64]).DataPoints {
		v, _ := p.Attributes.Value("lockstep.mode")
		modes[v.AsString()] = true
	}
	assert.Equal(t, map[string]bool{"legacy": true, "combined": true, "new": true, "unknown": true}, modes)
}

func TestNew_RefusesBadArgumentsSayingWhich(t *testing.T) {
	_, err := lockotel.New(nil, nil)
	require.ErrorContains(t, err, "nil MeterProvider")
	mp := sdkmetric.NewMeterProvider()
	_, err = lockotel.New(mp, &lockotel.Options{HoldBuckets: []float64{5, 5}})
	require.ErrorContains(t, err, "HoldBuckets must be strictly increasing")
}

// A real fleet on the model store, as in adapters/prometheus: one lock taken
// and held 3s in mode new, a TryLock that meets it, a legacy process refused
// by phase new.
func TestObserver_RecordsARealMigrationLocker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store := model.New(&clock.Local{})
		ctl, err := migration.NewController(store, nil)
		require.NoError(t, err)
		require.NoError(t, ctl.Set(ctx, lockstep.ModeCombined))
		require.NoError(t, ctl.Set(ctx, lockstep.ModeNew))

		obs, reader := newObserver(t, nil)
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
		time.Sleep(3 * time.Second) // virtual time
		require.NoError(t, held.Unlock(ctx))
		for _, l := range []*migration.Locker{a, b, old} {
			require.NoError(t, l.Close(ctx))
		}

		got := collect(t, reader)
		opts := []metricdatatest.Option{metricdatatest.IgnoreTimestamp()}
		metricdatatest.AssertEqual(t, sum("{acquisition}", "Lock and TryLock calls that finished.", "lockstep.acquisitions",
			point(1, modeNew, callLock, result("acquired")),
			point(1, modeNew, callTry, result("not_acquired")),
			point(1, modeLegacy, callLock, result("refused"), errType("refused")),
		), got["lockstep.acquisitions"], opts...)
		metricdatatest.AssertEqual(t, sum("{acquisition}", "Acquisitions refused because the fleet phase forbids the flag's mode.", "lockstep.mode.refusals",
			point(1, modeLegacy, attribute.String("lockstep.phase", "new")),
		), got["lockstep.mode.refusals"], opts...)
		hold := got["lockstep.hold.duration"].Data.(metricdata.Histogram[float64]).DataPoints
		require.Len(t, hold, 1)
		assert.Equal(t, uint64(1), hold[0].Count)
		assert.InDelta(t, 3.0, hold[0].Sum, 0.001)
	})
}

// BenchmarkObserveAcquire is one successful acquisition's event on the SDK
// with a manual reader.
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
