// Package sim runs unmodified lock algorithms as deterministic simulated
// processes on a simulated quorum cluster (model.Cluster), under a scheduler
// that a test — typically a pgregory.net/rapid state machine — drives one
// decision at a time.
//
// # How it works
//
// Everything runs inside one testing/synctest bubble. Each simulated
// [Process] hands the production code a lockstep.Clock and a lockstep.Store
// of its own. Every Store call and every Clock.Sleep is a yield point: the
// calling goroutine registers a [Yield] and blocks on a channel. The
// scheduler calls synctest.Wait, which returns once every goroutine of the
// bubble is durably blocked — at a yield point, or inside the production code
// on a channel, WaitGroup or select — and then lets the test pick exactly one
// thing to happen: grant one runnable yield (a store request is then served
// by the cluster, or a sleep ends), deliver or drop one message in flight,
// time out one request, move time, skew a clock, pause or crash a process.
// Only one simulated goroutine runs between two synctest.Wait calls (plus
// those that a granted goroutine itself wakes or starts), so a run is a pure
// function of the test's choices: the same rapid seed gives the same run.
//
// Virtual time moves only through the scheduler ([Sim.Tick], [Sim.Advance]).
// A process's clock reads virtual time plus its skew, never going backwards;
// each replica judges TTLs by virtual time plus its own skew.
//
// Runnable yields are ordered deterministically by process, then by the call
// stack that reached the yield (so a Locker's lease scheduler, a renewal it
// launched and the user goroutine of one process are told apart however the
// Go runtime interleaved their registration), then by registration order.
// Two goroutines of one process that reach a yield through the same stack
// are told apart only by registration order, so production code must not
// start two such goroutines at once: the lease scheduler launches one
// renewal per wake-up for that reason (internal/lease).
//
// # Crashes and the end of a run
//
// A crashed process is never granted again; its contexts are cancelled and
// its pending and future yields fail at once with [ErrKilled] without
// touching the cluster, so its goroutines run down and exit. [Sim.Close]
// crashes every process the same way, so that the synctest bubble can end.
// Messages a crashed process already sent stay in flight.
//
// This package is test support; production code never imports it.
package sim
