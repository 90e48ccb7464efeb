// Package prometheus exports lockstep's Observer events as Prometheus
// metrics (github.com/prometheus/client_golang). It is a module of its own, so
// a service that does not use Prometheus never pulls client_golang through
// lockstep.
//
// An [Observer] is both a lockstep.Observer and a prometheus.Collector:
// register it once, and hand it to the lockers (migration.Options.Observer,
// or queuelock/shadowlock/combined Options.Observer):
//
//	obs := prometheus.New(nil) // this package; import client_golang as, say, prom
//	reg.MustRegister(obs)
//	locker, err := migration.New(store, flag, &migration.Options{Observer: obs})
//
// # Metrics
//
// Names follow the Prometheus conventions: a namespace prefix (default
// "lockstep"), counters ending in _total, durations in seconds as histograms
// ending in _seconds. No label ever carries a lock id, an owner or an error
// text: every label takes one of a handful of values, so the number of series
// is bounded (at most 4 modes × 2 calls × 12 results for the largest).
//
//	lockstep_acquisitions_total{mode,call,result}    Lock and TryLock calls that finished
//	lockstep_acquire_wait_seconds{mode,outcome}      time from the call to its return
//	lockstep_acquire_store_requests{mode}            store requests an acquisition made, in sequence
//	lockstep_mode_refusals_total{mode,phase}         acquisitions the migration layer refused
//	lockstep_releases_total{mode,result}             Unlock calls that released cells or tried to
//	lockstep_hold_seconds{mode}                      time from acquisition to release
//	lockstep_lease_renewals_total{mode,result}       renewal attempts
//	lockstep_leases_lost_total{mode}                 leases declared lost
//	lockstep_wakeup_changes_total{state}             wake-ups stopped (blocked) or resumed (arriving)
//
// Label values:
//
//   - mode: legacy, combined, new; unknown for an acquisition whose flag
//     source failed (no mode was chosen). For mode_refusals_total it is the
//     mode the flag asked for, and phase the fleet phase that refused it
//     ("new", "pending:combined->new", ...).
//   - call: lock or try_lock.
//   - result of an acquisition: acquired; not_acquired (lockstep.ErrLocked:
//     a TryLock met a holder); refused (lockstep.ErrIncompatibleMode, a
//     *migration.ModeError: also counted in mode_refusals_total); flag_error;
//     stale_census (migration.ErrStaleCensus); canceled; deadline_exceeded;
//     lost; foreign_cell; unknown_outcome; closed; error (anything else,
//     such as a store error).
//   - outcome of a wait: acquired, not_acquired, failed.
//   - result of a release: released, lost, error. Of a renewal: renewed,
//     failed.
//
// A combined lock holds two leases (queue and legacy), both reported in mode
// combined: its lease_renewals_total grows twice per renewal period, and a
// loss of either half counts in leases_lost_total.
//
// A release whose deletes failed may be retried (a second Unlock, or the
// Locker's Close): each attempt is one release event, so releases_total and
// hold_seconds count it again.
//
// acquire_store_requests counts only acquisitions that reached the store
// through an algorithm (Requests > 0): the migration layer's refusals report
// none.
//
// What to watch during a migration (see package migration's runbook):
// rate(lockstep_mode_refusals_total[5m]) should be zero outside a Set;
// rate(lockstep_leases_lost_total[5m]) should stay at its pre-migration
// level; the acquire_wait_seconds quantiles of mode new show the fairness
// gain.
//
// # Cost
//
// Each label combination's child is resolved once, on its first event, and
// cached in an array indexed by mode and result: after that an event costs an
// atomic load and the client library's own Inc or Observe, with no
// allocation (BenchmarkObserveAcquire). Classifying an error walks its chain
// with errors.Is, only for failed calls.
package prometheus
