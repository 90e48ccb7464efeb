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
// bubble is durably blocked, and then lets the test pick exactly one thing to
// happen: grant one runnable yield (a store request is then served by the
// cluster, or a sleep ends), deliver or drop one message in flight, time out
// one request, move time, skew a clock, pause or crash a process.
//
// # One seed, one run
//
// A run is a pure function of the test's choices: the same seed gives the
// same run, event for event, whatever the Go runtime does — GOMAXPROCS, the
// race detector, the order in which goroutines happened to run — and
// whatever the layout of the code. Three rules make it so:
//
//   - Only one simulated goroutine runs at a time. A goroutine the lock code
//     starts goes through the process's clock (internal/lifecycle.Go) and
//     waits at a [Start] yield until granted; a goroutine whose wait another
//     goroutine ended — the context of its yield cancelled, or a hand-off
//     inside the process (internal/lifecycle.Resumed) — waits at a [Resume]
//     yield until granted. So a grant wakes one goroutine, and it runs alone
//     until it blocks again.
//   - Every goroutine has a name the program gives it, not the runtime: its
//     label is its place in the process's tree of goroutines (the j-th
//     goroutine started by the i-th goroutine the test started, and so on).
//     A goroutine waits at one yield at a time, so runnable yields are
//     ordered by process and then by label: by neither call stacks (which a
//     rename or a new line would change) nor the order in which goroutines
//     reached the scheduler (which the Go runtime decides).
//   - A crashed process runs down one yield at a time, in that order too.
//
// A goroutine that reaches a yield point without having been started through
// [Process.Go] or the clock panics with a message saying so: the lock code
// has a goroutine the simulator cannot order. [Sim.Trace] reports every
// decision the scheduler carries out, so two runs can be compared line by
// line (propertytests does, for every fleet, in plain, -race and
// GOMAXPROCS=1 runs, against recorded digests).
//
// Virtual time moves only through the scheduler ([Sim.Tick], [Sim.Advance]).
// A process's clock reads virtual time plus its skew, never going backwards;
// each replica judges TTLs by virtual time plus its own skew.
//
// # Crashes and the end of a run
//
// A crashed process is never granted again; its contexts are cancelled and
// its pending yields fail with [ErrKilled], one at a time, without touching
// the cluster, until its goroutines have run down; after that its yields
// fail at once. [Sim.Close] crashes every process the same way, one after
// the other, so that the synctest bubble can end.
// Messages a crashed process already sent stay in flight.
//
// This package is test support; production code never imports it.
package sim
