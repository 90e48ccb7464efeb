// Package otel records lockstep's Observer events as OpenTelemetry metrics
// (go.opentelemetry.io/otel/metric). It is a module of its own, so a service
// that does not use OpenTelemetry never pulls it through lockstep. It depends
// on the metrics API only; the service chooses the SDK and exporter.
//
//	obs, err := otel.New(meterProvider, nil) // this package; e.g. otel.GetMeterProvider() of go.opentelemetry.io/otel
//	locker, err := migration.New(store, flag, &migration.Options{Observer: obs})
//
// # Instruments
//
// Names follow the OpenTelemetry semantic conventions for metrics: dotted
// names under the "lockstep." namespace, durations as histograms in seconds
// ("s") named .duration, counts of things as counters with a curly-brace
// annotation unit and a plural name. Attributes are drawn from closed sets,
// never a lock id, owner or error text.
//
//	lockstep.acquisitions             Int64Counter      {acquisition}  lockstep.mode, lockstep.acquire.call, lockstep.acquire.result, error.type
//	lockstep.acquire.duration         Float64Histogram  s              lockstep.mode, lockstep.acquire.outcome
//	lockstep.acquire.store_requests   Int64Histogram    {request}      lockstep.mode
//	lockstep.mode.refusals            Int64Counter      {acquisition}  lockstep.mode, lockstep.phase
//	lockstep.releases                 Int64Counter      {release}      lockstep.mode, lockstep.release.result
//	lockstep.hold.duration            Float64Histogram  s              lockstep.mode
//	lockstep.lease.renewals           Int64Counter      {renewal}      lockstep.mode, lockstep.renewal.result
//	lockstep.lease.losses             Int64Counter      {lease}        lockstep.mode
//	lockstep.wakeup.changes           Int64Counter      {change}       lockstep.wakeup.state
//
// The attribute values are those of package adapters/prometheus (see its
// documentation): lockstep.mode is legacy, combined, new or unknown (a flag
// source that failed); lockstep.acquire.call is lock or try_lock;
// lockstep.acquire.result is acquired, not_acquired, refused, flag_error,
// stale_census, canceled, deadline_exceeded, lost, foreign_cell,
// unknown_outcome, closed or error; error.type, the semantic conventions'
// attribute for a failed operation, repeats the result on every acquisition
// that failed (all but acquired and not_acquired, a TryLock meeting a
// holder being an expected answer, not a failure); lockstep.acquire.outcome
// is acquired, not_acquired or failed; lockstep.phase is the refusing fleet
// phase ("new", "pending:combined->new", ...); lockstep.release.result is
// released, lost or error; lockstep.renewal.result is renewed or failed.
//
// A combined lock holds two leases (queue and legacy), both reported in mode
// combined: its renewals count twice per renewal period. A release whose
// deletes failed may be retried (a second Unlock, or the Locker's Close):
// each attempt is one release event.
//
// lockstep.acquire.store_requests records only acquisitions that reached the
// store through an algorithm (the migration layer's refusals report none).
//
// # Cost
//
// Every attribute set is built once, in New; an event then costs the
// instrument's Add or Record with a prebuilt option slice, and no allocation
// of this package's own (BenchmarkObserveAcquire measures it on the SDK).
package otel
