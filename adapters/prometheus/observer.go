package prometheus

import (
	"fmt"
	"sync/atomic"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/adapters/outcome"
)

// Options configure an Observer. The zero value of every field means its
// default; a nil *Options means all defaults.
type Options struct {
	// Namespace prefixes every metric name. Default "lockstep".
	Namespace string
	// ConstLabels are added to every metric, e.g. {"service": "billing"}.
	// Default none.
	ConstLabels prom.Labels
	// WaitBuckets are the upper bounds of acquire_wait_seconds, in seconds.
	// Default DefaultWaitBuckets.
	WaitBuckets []float64
	// HoldBuckets are the upper bounds of hold_seconds. Default
	// DefaultHoldBuckets.
	HoldBuckets []float64
	// RequestBuckets are the upper bounds of acquire_store_requests.
	// Default DefaultRequestBuckets.
	RequestBuckets []float64
}

// Default bucket bounds.
var (
	// DefaultWaitBuckets span an uncontended claim (a few ms on a local
	// quorum) to a minute in line.
	DefaultWaitBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
	// DefaultHoldBuckets span a short critical section to an hour.
	DefaultHoldBuckets = []float64{.01, .05, .1, .5, 1, 5, 10, 30, 60, 300, 900, 3600}
	// DefaultRequestBuckets: an uncontended claim makes a handful of
	// requests; a long wait polls.
	DefaultRequestBuckets = []float64{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128}
)

// Wait outcomes, the outcome label of acquire_wait_seconds.
const (
	waitAcquired = iota
	waitNotAcquired
	waitFailed
	numWaits
)

var waitNames = [numWaits]string{"acquired", "not_acquired", "failed"}

// Observer is a lockstep.Observer that counts into Prometheus metrics and a
// prometheus.Collector that exports them. Register it with one registry. Safe
// for concurrent use.
type Observer struct {
	acquisitions *prom.CounterVec
	wait         *prom.HistogramVec
	requests     *prom.HistogramVec
	refusals     *prom.CounterVec
	releases     *prom.CounterVec
	hold         *prom.HistogramVec
	renewals     *prom.CounterVec
	lost         *prom.CounterVec
	wake         *prom.CounterVec

	// Children resolved on first use; each slot holds a prom.Counter or a
	// prom.Observer.
	acq      [outcome.NumModes][2][outcome.NumResults]atomic.Value
	waitC    [outcome.NumModes][numWaits]atomic.Value
	reqC     [outcome.NumModes]atomic.Value
	refC     [outcome.NumModes][outcome.NumModes][outcome.NumModes]atomic.Value // [configured][phase.Mode][phase.Target]
	relC     [outcome.NumModes][outcome.NumReleases]atomic.Value
	holdC    [outcome.NumModes]atomic.Value
	renewC   [outcome.NumModes][2]atomic.Value // [mode][renewed]
	lostC    [outcome.NumModes]atomic.Value
	children []prom.Collector
}

var (
	_ lockstep.Observer     = (*Observer)(nil)
	_ lockstep.WakeObserver = (*Observer)(nil)
	_ prom.Collector        = (*Observer)(nil)
)

// New returns an Observer; register it (prometheus.Registerer.Register) to
// export its metrics. Invalid options (an invalid namespace or label name,
// unsorted buckets) return an error saying which, having built nothing.
func New(opts *Options) (*Observer, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Namespace == "" {
		o.Namespace = "lockstep"
	}
	if !validName(o.Namespace) {
		return nil, fmt.Errorf("lockstep/adapters/prometheus: Namespace %q is not a valid metric name prefix: use letters, digits and underscores, not starting with a digit", o.Namespace)
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
				return nil, fmt.Errorf("lockstep/adapters/prometheus: %s must be strictly increasing, got %v", b.name, *b.v)
			}
		}
	}
	counter := func(name, help string, labels ...string) *prom.CounterVec {
		return prom.NewCounterVec(prom.CounterOpts{Namespace: o.Namespace, Name: name, Help: help, ConstLabels: o.ConstLabels}, labels)
	}
	histogram := func(name, help string, buckets []float64, labels ...string) *prom.HistogramVec {
		return prom.NewHistogramVec(prom.HistogramOpts{Namespace: o.Namespace, Name: name, Help: help, ConstLabels: o.ConstLabels, Buckets: buckets}, labels)
	}
	obs := &Observer{
		acquisitions: counter("acquisitions_total", "Lock and TryLock calls that finished, by mode, call and result.", "mode", "call", "result"),
		wait:         histogram("acquire_wait_seconds", "Time from a Lock or TryLock call to its return, by mode and outcome.", o.WaitBuckets, "mode", "outcome"),
		requests:     histogram("acquire_store_requests", "Store requests one acquisition made in sequence, by mode.", o.RequestBuckets, "mode"),
		refusals:     counter("mode_refusals_total", "Acquisitions refused because the fleet phase forbids the flag's mode, by that mode and the phase.", "mode", "phase"),
		releases:     counter("releases_total", "Unlock calls that released cells or tried to, by mode and result.", "mode", "result"),
		hold:         histogram("hold_seconds", "Time from acquisition to release, by mode.", o.HoldBuckets, "mode"),
		renewals:     counter("lease_renewals_total", "Lease renewal attempts, by mode and result.", "mode", "result"),
		lost:         counter("leases_lost_total", "Leases declared lost, by mode.", "mode"),
		wake:         counter("wakeup_changes_total", "Times a queue Locker with wake-ups stopped relying on them (state=blocked: handoffs in a row came without theirs) or relied on them again (state=arriving).", "state"),
	}
	obs.children = []prom.Collector{obs.acquisitions, obs.wait, obs.requests, obs.refusals, obs.releases, obs.hold, obs.renewals, obs.lost, obs.wake}
	// Building one child of each checks ConstLabels against the label
	// names now, rather than panicking on the first event; then drop it.
	for _, c := range obs.children {
		if err := checkLabels(c); err != nil {
			return nil, fmt.Errorf("lockstep/adapters/prometheus: ConstLabels %v: %w", o.ConstLabels, err)
		}
	}
	return obs, nil
}

// Describe implements prometheus.Collector.
func (o *Observer) Describe(ch chan<- *prom.Desc) {
	for _, c := range o.children {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (o *Observer) Collect(ch chan<- prom.Metric) {
	for _, c := range o.children {
		c.Collect(ch)
	}
}

func validName(s string) bool {
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

// checkLabels registers c with a throwaway registry, which validates its
// descriptor (label names, constant labels) as the caller's registration
// would, so that a bad option fails New rather than the first event.
func checkLabels(c prom.Collector) error {
	return prom.NewPedanticRegistry().Register(c)
}
