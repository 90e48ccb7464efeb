// Package held is one acquisition, whatever its mode: the value every
// Locker of this module returns from Lock and TryLock.
//
// An acquisition is made of parts, one per algorithm whose cells it holds:
// one for a legacy or a new lock, two (queue, then legacy) for a combined
// one. Each part owns its cells and the lease that renews them, and knows
// how to delete them. The [Lock] around the parts carries what belongs to
// the acquisition as a whole: its id, owner, mode and fencing token, one
// loss signal, and the Unlock contract of lockstep.Lock, written once here
// instead of once per algorithm and once more per wrapper.
//
// # One loss signal, no goroutine per lock
//
// A [Loss] is closed once, by whichever of its sources gives up first: a
// part's lease declaring itself lost fires it from the lease's own hook, and
// a migration Locker fires the Loss of every lock taken in a census epoch
// when that epoch ends. Lost() also runs every source's deadline check
// itself, so a caller that looks at Lost before working never works past a
// deadline even before the lease's scheduler has run (after a pause of the
// whole process, say). Nothing is merged by a goroutine, and its leases are
// entries of their Locker's lease scheduler (internal/lease), so a held lock
// at rest costs no goroutine at all.
//
// # Composition
//
// An algorithm's core (internal/queue, internal/shadow) takes just a part
// when asked with a [Request] (its Acquire method), with a Loss given by
// the caller, no fencing token, no Observer event and no tracking for
// Close, and returns a [Result]. The combined lock (internal/combine)
// takes its two parts that way from the two cores it holds; package
// migration builds one queue and one legacy core it shares between modes,
// so a process has one contender per id in the store whatever its flag
// says. Nothing is registered and nothing is global: a composer calls the
// cores it built or was given, and builds both with one owner-id issuer,
// passed explicitly. Users never see any of it: the cores are internal, a
// public package's Locker is the lock manager's Locker (a type only this
// module can convert to and reach the core through), and a Lock is only
// ever handed out as a lockstep.Lock.
//
// Two pieces let package combined overlap its halves' requests: the legacy
// core's Prepare starts a part whose rounds wait for Prepared.Go (or
// Abort) before they write the cell that holds the lock, and [Claims],
// handed to the queue part in its Request, on which the part notes each
// claim as its write is sent and the claim's outcome. internal/combine
// reads those notes on a goroutine of its own and starts and aborts the
// prepared legacy part itself: the queue part only notes, and nothing
// here calls an algorithm. With Spec.ParallelRelease, Unlock sends the
// parts' deletes at once.
package held
