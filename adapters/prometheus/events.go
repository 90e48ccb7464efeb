package prometheus

import (
	"context"
	"sync/atomic"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/adapters/outcome"
)

// ObserveAcquire counts a finished Lock or TryLock call: acquisitions_total,
// acquire_wait_seconds, acquire_store_requests (if it made requests), and
// mode_refusals_total for a refused mode.
func (o *Observer) ObserveAcquire(_ context.Context, e lockstep.AcquireEvent) {
	m := outcome.ModeIndex(e.Mode)
	r := outcome.Acquire(&e)
	try := 0
	if e.Try {
		try = 1
	}
	counter(&o.acq[m][try][r], o.acquisitions, e.Mode, outcome.Call(e.Try), r.String()).Inc()
	w := waitFailed
	switch r {
	case outcome.Acquired:
		w = waitAcquired
	case outcome.NotAcquired:
		w = waitNotAcquired
	}
	observer(&o.waitC[m][w], o.wait, e.Mode, waitNames[w]).Observe(e.Wait.Seconds())
	if e.Requests > 0 {
		observer(&o.reqC[m], o.requests, e.Mode).Observe(float64(e.Requests))
	}
	if r == outcome.Refused {
		if c, p, ok := outcome.Refusal(&e); ok {
			slot := &o.refC[outcome.ModeIndex(c)][outcome.ModeIndex(p.Mode)][outcome.ModeIndex(p.Target)]
			counter(slot, o.refusals, c, p.String()).Inc()
		}
	}
}

// ObserveRelease counts an Unlock that released cells: releases_total and
// hold_seconds.
func (o *Observer) ObserveRelease(_ context.Context, e lockstep.ReleaseEvent) {
	m := outcome.ModeIndex(e.Mode)
	r := outcome.ReleaseOf(&e)
	counter(&o.relC[m][r], o.releases, e.Mode, r.String()).Inc()
	observer(&o.holdC[m], o.hold, e.Mode).Observe(e.Held.Seconds())
}

// ObserveLease counts a renewal attempt (lease_renewals_total) or the loss of
// a lease (leases_lost_total).
func (o *Observer) ObserveLease(_ context.Context, e lockstep.LeaseEvent) {
	m := outcome.ModeIndex(e.Mode)
	if e.Lost {
		counter(&o.lostC[m], o.lost, e.Mode).Inc()
		return
	}
	if e.Renewed {
		counter(&o.renewC[m][1], o.renewals, e.Mode, "renewed").Inc()
	} else {
		counter(&o.renewC[m][0], o.renewals, e.Mode, "failed").Inc()
	}
}

// ObserveWake counts a change in whether a queue Locker's wake-ups arrive
// (wakeup_changes_total, state blocked or arriving). It is rare, so the
// child is looked up each time.
func (o *Observer) ObserveWake(_ context.Context, e lockstep.WakeEvent) {
	state := "arriving"
	if e.Blocked {
		state = "blocked"
	}
	o.wake.WithLabelValues(state).Inc()
}

// counter returns the child of vec in slot, resolving it with the mode's name
// and the rest of the label values on first use. The label values are only
// used on that first call; after it, no allocation happens.
func counter(slot *atomic.Value, vec *prom.CounterVec, m lockstep.Mode, rest ...string) prom.Counter {
	if c, ok := slot.Load().(prom.Counter); ok {
		return c
	}
	return resolveCounter(slot, vec, m, rest)
}

func observer(slot *atomic.Value, vec *prom.HistogramVec, m lockstep.Mode, rest ...string) prom.Observer {
	if h, ok := slot.Load().(prom.Observer); ok {
		return h
	}
	return resolveObserver(slot, vec, m, rest)
}

func resolveCounter(slot *atomic.Value, vec *prom.CounterVec, m lockstep.Mode, rest []string) prom.Counter {
	c := vec.WithLabelValues(labels(m, rest)...)
	slot.Store(c) // a racing first use stores the same child: WithLabelValues is idempotent
	return c
}

func resolveObserver(slot *atomic.Value, vec *prom.HistogramVec, m lockstep.Mode, rest []string) prom.Observer {
	h := vec.WithLabelValues(labels(m, rest)...)
	slot.Store(h)
	return h
}

func labels(m lockstep.Mode, rest []string) []string {
	name := "unknown"
	if m.Valid() {
		name = m.String()
	}
	return append([]string{name}, rest...)
}
