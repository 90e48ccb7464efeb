// Package clock provides the time sources of lockstep behind the
// [lockstep.Clock] interface: the local clock, a skewed clock for tests and
// simulations, a strictly increasing write-timestamp generator, the hybrid
// logical clock that names queue cells, and the global time cell of seed 000
// §5.4 that fencing tokens are drawn from.
//
// It sits just above the root package: the algorithms import it, and it
// imports nothing of the module but the root.
//
// Why three clocks. Cassandra resolves conflicting writes by timestamp, so a
// process must never reuse or go below its own last write timestamp
// ([Timestamps]). The queue algorithm orders waiters by the time in their cell
// names; a process whose clock lags could cut in front of waiters it has
// already seen, so names come from a hybrid logical clock ([HLC]) that never
// issues a time at or below one it has observed. [Global] is the documents'
// remedy for skew across all processes: a single cell whose value equals its
// write timestamp, so last-write-wins keeps its maximum (theorem 5). Every
// fencing-token draw raises it; no service process runs beside it. A draw may
// reserve values ahead of use ([Global.ReserveAhead]), which a later lock of
// the process takes with no request ([Global.TakeAhead]) under the conditions
// docs/algorithms.md, section 5.3, gives.
package clock
