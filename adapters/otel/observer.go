package otel

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/adapters/outcome"
	"github.com/lockstep-go/lockstep/migration"
)

// ScopeName is the instrumentation scope of the Meter an Observer creates.
const ScopeName = "github.com/lockstep-go/lockstep/adapters/otel"

// Options configure an Observer. The zero value of every field means its
// default; a nil *Options means all defaults.
type Options struct {
	// WaitBuckets are the explicit bucket boundaries of
	// lockstep.acquire.duration, in seconds. Default DefaultWaitBuckets.
	WaitBuckets []float64
	// HoldBuckets are those of lockstep.hold.duration. Default
	// DefaultHoldBuckets.
	HoldBuckets []float64
	// RequestBuckets are those of lockstep.acquire.store_requests. Default
	// DefaultRequestBuckets.
	RequestBuckets []float64
	// Attributes are added to every measurement, e.g.
	// attribute.String("service.component", "billing"). Prefer resource
	// attributes for what identifies the process. Default none.
	Attributes []attribute.KeyValue
}

// Default bucket boundaries, the same as adapters/prometheus's.
var (
	DefaultWaitBuckets    = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
	DefaultHoldBuckets    = []float64{.01, .05, .1, .5, 1, 5, 10, 30, 60, 300, 900, 3600}
	DefaultRequestBuckets = []float64{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128}
)

// Attribute keys.
const (
	keyMode          = attribute.Key("lockstep.mode")
	keyCall          = attribute.Key("lockstep.acquire.call")
	keyResult        = attribute.Key("lockstep.acquire.result")
	keyErrorType     = attribute.Key("error.type")
	keyOutcome       = attribute.Key("lockstep.acquire.outcome")
	keyPhase         = attribute.Key("lockstep.phase")
	keyReleaseResult = attribute.Key("lockstep.release.result")
	keyRenewalResult = attribute.Key("lockstep.renewal.result")
	keyWakeState     = attribute.Key("lockstep.wakeup.state")
)

const (
	waitAcquired = iota
	waitNotAcquired
	waitFailed
	numWaits
)

var waitNames = [numWaits]string{"acquired", "not_acquired", "failed"}

const nm = outcome.NumModes

// Observer is a lockstep.Observer that records into OpenTelemetry
// instruments. Safe for concurrent use.
type Observer struct {
	acquisitions metric.Int64Counter
	wait         metric.Float64Histogram
	requests     metric.Int64Histogram
	refusals     metric.Int64Counter
	releases     metric.Int64Counter
	hold         metric.Float64Histogram
	renewals     metric.Int64Counter
	lost         metric.Int64Counter
	wake         metric.Int64Counter

	// Prebuilt measurement options, one slice per attribute combination.
	acqOpt   [nm][2][outcome.NumResults][]metric.AddOption
	waitOpt  [nm][numWaits][]metric.RecordOption
	modeRec  [nm][]metric.RecordOption
	modeAdd  [nm][]metric.AddOption
	refOpt   [nm][nm][nm][]metric.AddOption // [configured][phase.Mode][phase.Target]
	relOpt   [nm][outcome.NumReleases][]metric.AddOption
	renewOpt [nm][2][]metric.AddOption // [mode][renewed]
	wakeOpt  [2][]metric.AddOption     // [blocked]
}

var (
	_ lockstep.Observer     = (*Observer)(nil)
	_ lockstep.WakeObserver = (*Observer)(nil)
)

// New returns an Observer whose instruments come from a Meter of mp, with
// scope ScopeName. A nil mp, unsorted buckets or an instrument the provider
// refuses return an error saying which, having built nothing.
func New(mp metric.MeterProvider, opts *Options) (*Observer, error) {
	if mp == nil {
		return nil, errors.New("lockstep/adapters/otel: nil MeterProvider: pass the SDK's provider, or otel.GetMeterProvider() for the global one")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	for _, b := range []struct {
		name string
		v    *[]float64
		def  []float64
	}{{"WaitBuckets", &o.WaitBuckets, DefaultWaitBuckets}, {"HoldBuckets", &o.HoldBuckets, DefaultHoldBuckets}, {"RequestBuckets", &o.RequestBuckets, DefaultRequestBuckets}} {
		if len(*b.v) == 0 {
			*b.v = b.def
		}
		for i := 1; i < len(*b.v); i++ {
			if (*b.v)[i] <= (*b.v)[i-1] {
				return nil, fmt.Errorf("lockstep/adapters/otel: %s must be strictly increasing, got %v", b.name, *b.v)
			}
		}
	}
	obs := &Observer{}
	if err := obs.instruments(mp.Meter(ScopeName), &o); err != nil {
		return nil, fmt.Errorf("lockstep/adapters/otel: %w", err)
	}
	obs.prebuild(o.Attributes)
	return obs, nil
}

func (obs *Observer) instruments(m metric.Meter, o *Options) error {
	var errs []error
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	obs.acquisitions = counter("lockstep.acquisitions", "{acquisition}", "Lock and TryLock calls that finished.")
	obs.refusals = counter("lockstep.mode.refusals", "{acquisition}", "Acquisitions refused because the fleet phase forbids the flag's mode.")
	obs.releases = counter("lockstep.releases", "{release}", "Unlock calls that released cells or tried to.")
	obs.renewals = counter("lockstep.lease.renewals", "{renewal}", "Lease renewal attempts.")
	obs.lost = counter("lockstep.lease.losses", "{lease}", "Leases declared lost.")
	obs.wake = counter("lockstep.wakeup.changes", "{change}", "Times a queue Locker with wake-ups stopped relying on them (blocked) or relied on them again (arriving).")
	var err error
	obs.wait, err = m.Float64Histogram("lockstep.acquire.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from a Lock or TryLock call to its return."), metric.WithExplicitBucketBoundaries(o.WaitBuckets...))
	errs = append(errs, err)
	obs.hold, err = m.Float64Histogram("lockstep.hold.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from acquisition to release."), metric.WithExplicitBucketBoundaries(o.HoldBuckets...))
	errs = append(errs, err)
	obs.requests, err = m.Int64Histogram("lockstep.acquire.store_requests", metric.WithUnit("{request}"),
		metric.WithDescription("Store requests one acquisition made in sequence."), metric.WithExplicitBucketBoundaries(o.RequestBuckets...))
	errs = append(errs, err)
	return errors.Join(errs...)
}

// prebuild makes every attribute combination's option slice, so that events
// build none.
func (obs *Observer) prebuild(extra []attribute.KeyValue) {
	set := func(kv ...attribute.KeyValue) attribute.Set {
		return attribute.NewSet(append(append([]attribute.KeyValue(nil), extra...), kv...)...)
	}
	add := func(kv ...attribute.KeyValue) []metric.AddOption {
		return []metric.AddOption{metric.WithAttributeSet(set(kv...))}
	}
	rec := func(kv ...attribute.KeyValue) []metric.RecordOption {
		return []metric.RecordOption{metric.WithAttributeSet(set(kv...))}
	}
	for m := range nm {
		mode := keyMode.String(modeName(lockstep.Mode(m)))
		for try := range 2 {
			for r := range outcome.NumResults {
				kv := []attribute.KeyValue{mode, keyCall.String(outcome.Call(try == 1)), keyResult.String(r.String())}
				if r.Failed() {
					kv = append(kv, keyErrorType.String(r.String()))
				}
				obs.acqOpt[m][try][r] = add(kv...)
			}
		}
		for w := range numWaits {
			obs.waitOpt[m][w] = rec(mode, keyOutcome.String(waitNames[w]))
		}
		obs.modeRec[m] = rec(mode)
		obs.modeAdd[m] = add(mode)
		for pm := range nm {
			for pt := range nm {
				p := migration.Phase{Mode: lockstep.Mode(pm), Target: lockstep.Mode(pt)}
				obs.refOpt[m][pm][pt] = add(mode, keyPhase.String(p.String()))
			}
		}
		for r := range outcome.NumReleases {
			obs.relOpt[m][r] = add(mode, keyReleaseResult.String(r.String()))
		}
		obs.renewOpt[m][0] = add(mode, keyRenewalResult.String("failed"))
		obs.renewOpt[m][1] = add(mode, keyRenewalResult.String("renewed"))
	}
	obs.wakeOpt[0] = add(keyWakeState.String("arriving"))
	obs.wakeOpt[1] = add(keyWakeState.String("blocked"))
}

func modeName(m lockstep.Mode) string {
	if m.Valid() {
		return m.String()
	}
	return "unknown"
}

// ObserveAcquire records a finished Lock or TryLock call:
// lockstep.acquisitions, lockstep.acquire.duration,
// lockstep.acquire.store_requests (if it made requests) and, for a refused
// mode, lockstep.mode.refusals. ctx is passed to the instruments (for
// exemplars and baggage-based views).
func (obs *Observer) ObserveAcquire(ctx context.Context, e lockstep.AcquireEvent) {
	m := outcome.ModeIndex(e.Mode)
	r := outcome.Acquire(&e)
	try := 0
	if e.Try {
		try = 1
	}
	obs.acquisitions.Add(ctx, 1, obs.acqOpt[m][try][r]...)
	w := waitFailed
	switch r {
	case outcome.Acquired:
		w = waitAcquired
	case outcome.NotAcquired:
		w = waitNotAcquired
	}
	obs.wait.Record(ctx, e.Wait.Seconds(), obs.waitOpt[m][w]...)
	if e.Requests > 0 {
		obs.requests.Record(ctx, int64(e.Requests), obs.modeRec[m]...)
	}
	if r == outcome.Refused {
		if c, p, ok := outcome.Refusal(&e); ok {
			obs.refusals.Add(ctx, 1, obs.refOpt[outcome.ModeIndex(c)][outcome.ModeIndex(p.Mode)][outcome.ModeIndex(p.Target)]...)
		}
	}
}

// ObserveRelease records an Unlock that released cells: lockstep.releases
// and lockstep.hold.duration.
func (obs *Observer) ObserveRelease(ctx context.Context, e lockstep.ReleaseEvent) {
	m := outcome.ModeIndex(e.Mode)
	obs.releases.Add(ctx, 1, obs.relOpt[m][outcome.ReleaseOf(&e)]...)
	obs.hold.Record(ctx, e.Held.Seconds(), obs.modeRec[m]...)
}

// ObserveLease records a renewal attempt (lockstep.lease.renewals) or a lost
// lease (lockstep.lease.losses).
func (obs *Observer) ObserveLease(ctx context.Context, e lockstep.LeaseEvent) {
	m := outcome.ModeIndex(e.Mode)
	switch {
	case e.Lost:
		obs.lost.Add(ctx, 1, obs.modeAdd[m]...)
	case e.Renewed:
		obs.renewals.Add(ctx, 1, obs.renewOpt[m][1]...)
	default:
		obs.renewals.Add(ctx, 1, obs.renewOpt[m][0]...)
	}
}

// ObserveWake records a change in whether a queue Locker's wake-ups arrive
// (lockstep.wakeup.changes, lockstep.wakeup.state blocked or arriving).
func (obs *Observer) ObserveWake(ctx context.Context, e lockstep.WakeEvent) {
	b := 0
	if e.Blocked {
		b = 1
	}
	obs.wake.Add(ctx, 1, obs.wakeOpt[b]...)
}
