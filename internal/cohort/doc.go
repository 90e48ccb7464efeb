// Package cohort is local handoff (lock cohorting, after Dice, Marathe
// and Shavit, PPoPP 2012) as a layer between a lock manager and its
// algorithm: an [Algorithm] is a manager.Algorithm over another one, which
// queuelock builds over the queue lock, and migration over its mode
// switch, when their Options.LocalHandoff is set. It depends on
// internal/manager (the interface), internal/held and internal/lifecycle,
// never on a store.
//
// # What it does
//
// Per id, the exclusive acquisitions of this process form a line, first
// come first served. The first takes the id from the inner algorithm (the
// store hold); the others wait in the line, in memory. When a holder
// unlocks, its lock's one part (grant) offers the store hold to the next
// in line, which gets it without any store request, if
//
//   - the store hold's loss signal has not fired, and
//   - fewer than Options.Bound handoffs followed the store acquisition
//     (its token block has one left).
//
// When the bound is reached with a waiter in line, the inner algorithm
// can look at the store (a Watcher) and the store acquisition's claim saw
// nobody else waiting (held.Spec.Crowded), the store hold is handed to that
// waiter all the same, marked due (extend.go). A few grants before the
// bound (LookLead), as the hold is handed on, a goroutine of the layer
// looks at the store once (Watcher.Waiting) and, if no acquisition of
// another owner waits there and the hold carries tokens, draws a fresh
// block of Bound+1 tokens through the inner algorithm's Extender. Before
// its grant, the due waiter waits for that look if it is still in flight
// and, if it saw nobody (and the draw was kept), no request of another
// access of this process waits behind the hold in the inner algorithm and
// the lease is open, extends the hold: it starts the count of handoffs
// again and takes the block's first token. Whatever else it finds (a
// waiter, a failed look or draw, a closed lease), it releases the store
// hold and takes the id from the inner algorithm itself. Neither the look
// nor the wait for it holds the layer's mutex: the holder's Unlock
// returns at once.
//
// Otherwise the store hold is stopped and released as a direct holder's
// would be, and the next in line (if any) takes the id from the inner
// algorithm afresh, behind whoever waits in the store. Every other access,
// a Try acquisition while the line is not empty, and an adopted lock pass
// straight through to the inner algorithm.
//
// The store acquisition reserves a block of Bound+1 fencing tokens
// (manager.Acquisition.TokenBlock: the inner algorithm's draw writes the
// block's last to the global time cell), and a local grant takes the
// block's next token with no store request, keeping it only if the store
// hold's lease is open at that moment (Loss.Fired runs the in-time
// deadline check); otherwise the waiter releases the hold and takes the id
// from the inner algorithm itself. Each grant has a loss signal of its
// own, fired by the store hold's and bounded by its deadlines while the
// grant holds it, so a lease lost under a local holder closes that
// holder's Lost(), as a direct holder's.
//
// With Options.Retain, a store hold whose last holder unlocks with nobody
// in line, the lease open and the bound not reached is retained: kept,
// renewed, with no holder, for up to Retain, and granted in memory to the
// next exclusive Take of the id (retain.go). A goroutine per retained hold
// looks at the store through the inner algorithm's Watcher at once and
// every Options.WatchEvery and releases the hold when a waiter of another
// owner shows, the window ends or the lease is lost; a Take of another
// access releases it first, and Close releases every one. A re-lock that
// claims the hold while its first look is in flight does not wait for it,
// nor call it off: a waiter the look sees then makes the hold yield, so
// that its holder's Unlock releases it in the store.
//
// # Safety, in short
//
// docs/algorithms.md, section 4.15, has the argument. Exclusion: the store
// hold excludes every other process and every other access of this one
// (the inner algorithm's argument), and this layer gives each store hold
// to one grant at a time: a grant is made only by the inner Take or by the
// Stop of the previous grant, at its Unlock. Tokens: the grants of one
// store hold take its block's values in order, so each is above the one
// before; a remote successor claims only after the store hold's cells are
// gone, after the block draw completed and after every grant was made
// under an open lease, so its draw reads at least the block's last and
// returns more (clock.Global.Reserve; internal/fencing). An extension's
// block is drawn after the previous block's draw completed, so it is above
// that whole block, and kept only if the lease was open when the draw
// returned, as the store acquisition's. Remote waiters: a store hold is
// released at its bound unless the look its block sent sees no other
// owner's waiter, and a look sees every queue cell whose write completed
// before it was sent, so a remote waiter waits for at most the rest of
// one block and one extension of the store hold that holds as it
// enqueues. Cancellation: a
// waiter whose ctx ends leaves the line, or passes on what it was given
// meanwhile.
package cohort
