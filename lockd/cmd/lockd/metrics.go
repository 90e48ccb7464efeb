package main

import (
	"net/http"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/lockstep-go/lockstep"
	lockprom "github.com/lockstep-go/lockstep/adapters/prometheus"
	"github.com/lockstep-go/lockstep/lockd"
)

// metrics are what lockd serves at /metrics: its Locker's events through
// the adapters/prometheus Observer (lockstep_*), lockd's own counters
// (lockd_*), and the Go runtime's and the process's, in one registry of
// lockd's own (no global registry). All nil when --metrics=false.
type metrics struct {
	reg      *prom.Registry
	observer lockstep.Observer
	lockd    *lockd.Metrics
}

func newMetrics(on bool) (*metrics, error) {
	if !on {
		return &metrics{}, nil
	}
	obs, err := lockprom.New(nil)
	if err != nil {
		return nil, err
	}
	m := &metrics{reg: prom.NewRegistry(), observer: obs, lockd: lockd.NewMetrics("")}
	for _, c := range []prom.Collector{obs, m.lockd, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		if err := m.reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// handler serves /metrics beside the lock service's handler h.
func (m *metrics) handler(h http.Handler) http.Handler {
	if m.reg == nil {
		return h
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	mux.Handle("/", h)
	return mux
}
