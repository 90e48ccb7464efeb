package lockd

import (
	"context"
	"errors"
	"strings"

	"connectrpc.com/connect"
	prom "github.com/prometheus/client_golang/prometheus"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// Metrics are lockd's own Prometheus metrics, beside the Locker's (which
// the adapters/prometheus Observer reports, as for any process of the
// fleet). A Metrics is a prometheus.Collector: register it once and pass it
// in Options.Metrics. No label carries a session, a lock id, a principal or
// an error text: method, code and reason each take one of a fixed set of
// values (the service's methods, the status codes, LockError's reasons),
// so the number of series is bounded.
//
//	lockd_sessions_open                      sessions live now
//	lockd_rpcs_total{method,code}            calls answered, by method and status code ("ok" for success)
//	lockd_error_answers_total{reason}        error answers, by LockError reason ("no_prefix", "not_your_token", ...)
//	lockd_identity_joins_total               SetToken calls that joined a session to an identity
//
// A streaming call (WatchSession) counts when its stream ends.
type Metrics struct {
	sessions prom.Gauge
	rpcs     *prom.CounterVec
	errors   *prom.CounterVec
	joins    prom.Counter
}

var _ prom.Collector = (*Metrics)(nil)

// NewMetrics returns lockd's metrics under namespace ("" is "lockd").
func NewMetrics(namespace string) *Metrics {
	if namespace == "" {
		namespace = "lockd"
	}
	return &Metrics{
		sessions: prom.NewGauge(prom.GaugeOpts{Namespace: namespace, Name: "sessions_open", Help: "Sessions live now."}),
		rpcs: prom.NewCounterVec(prom.CounterOpts{Namespace: namespace, Name: "rpcs_total",
			Help: "Calls answered, by method and status code (ok for success)."}, []string{"method", "code"}),
		errors: prom.NewCounterVec(prom.CounterOpts{Namespace: namespace, Name: "error_answers_total",
			Help: "Error answers, by the LockError reason they carried."}, []string{"reason"}),
		joins: prom.NewCounter(prom.CounterOpts{Namespace: namespace, Name: "identity_joins_total",
			Help: "SetToken calls that joined a session to another session's identity."}),
	}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prom.Desc) {
	m.sessions.Describe(ch)
	m.rpcs.Describe(ch)
	m.errors.Describe(ch)
	m.joins.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prom.Metric) {
	m.sessions.Collect(ch)
	m.rpcs.Collect(ch)
	m.errors.Collect(ch)
	m.joins.Collect(ch)
}

// The Server's hooks; each is a no-op on a nil *Metrics.

func (m *Metrics) sessionOpened() {
	if m != nil {
		m.sessions.Inc()
	}
}

func (m *Metrics) sessionEnded() {
	if m != nil {
		m.sessions.Dec()
	}
}

func (m *Metrics) joined() {
	if m != nil {
		m.joins.Inc()
	}
}

// answered counts one call of procedure ("/lockstep.v1.LockService/Lock")
// that returned err.
func (m *Metrics) answered(procedure string, err error) {
	if m == nil {
		return
	}
	method := procedure[strings.LastIndexByte(procedure, '/')+1:]
	code := "ok"
	if err != nil {
		code = connect.CodeOf(err).String()
		var ce *connect.Error
		if errors.As(err, &ce) {
			for _, d := range ce.Details() {
				if v, derr := d.Value(); derr == nil {
					if le, ok := v.(*pb.LockError); ok && le.Reason != pb.LockError_REASON_UNSPECIFIED {
						m.errors.WithLabelValues(strings.ToLower(strings.TrimPrefix(le.Reason.String(), "REASON_"))).Inc()
					}
				}
			}
		}
	}
	m.rpcs.WithLabelValues(method, code).Inc()
}

// interceptor counts every call the handler answers.
func (m *Metrics) interceptor() connect.Interceptor { return metricsInterceptor{m} }

type metricsInterceptor struct{ m *Metrics }

func (i metricsInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		res, err := next(ctx, req)
		i.m.answered(req.Spec().Procedure, err)
		return res, err
	}
}

func (i metricsInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (i metricsInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		err := next(ctx, conn)
		i.m.answered(conn.Spec().Procedure, err)
		return err
	}
}
