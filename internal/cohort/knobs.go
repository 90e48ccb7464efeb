package cohort

// TestingKnobs plant this package's defects, for the model checks'
// negative controls (propertytests); production code leaves them nil.
type TestingKnobs struct {
	// ReuseToken grants a local handoff the previous holder's fencing
	// token instead of drawing a fresh one: two successive holders carry
	// one token, and a fenced resource cannot refuse the earlier one's
	// late writes.
	ReuseToken bool
	// Unbounded ignores Options.Bound: while a local waiter is in line the
	// store hold passes on for ever, and other processes' waiters starve.
	Unbounded bool
	// UnreservedBlock takes the store hold with a token block of one (the
	// global cell holds only the store acquisition's token) but still
	// grants the next values in memory: a remote successor's draw can
	// return a value a local holder already carries.
	UnreservedBlock bool
	// RetainIgnoresWaiters keeps a retained store hold (Options.Retain)
	// past its window and whatever waits in the store, until a local
	// request, a lost lease or Close: other processes' waiters starve.
	RetainIgnoresWaiters bool
	// HandOnShared ignores Share's mark on a grant: its Unlock still hands
	// the store hold to the next in line (or retains it), which then holds
	// the id in memory beside the processes that adopted the shared lock.
	HandOnShared bool
	// DropOvertakenLook drops the outcome of a retained hold's look that a
	// re-lock overtook (claimed the hold while the read was in flight): a
	// goroutine that locks again at once passes a remote waiter the look
	// saw, up to Bound times in a row.
	DropOvertakenLook bool
	// ExtendUnlooked extends a store hold at the bound with a local
	// waiter in line without looking at the store (extend.go), even when
	// its claim saw a waiter: while a goroutine of the holding process
	// waits, the store hold never leaves it, and other processes' waiters
	// starve.
	ExtendUnlooked bool
	// ExtendUnreserved extends a fenced store hold at the bound with a
	// draw of one token and grants the Bound tokens after it in memory,
	// never reserved: the global cell holds only the draw's value, so a
	// remote successor whose clock reads below the extended block draws a
	// token a local holder already carried.
	ExtendUnreserved bool
	// ExtendOnFirstLook sends a store hold's first look ahead only: each
	// later block of the hold is extended on that look's answer, with a
	// draw but no look of its own, so a waiter of another owner that
	// enqueued after the first look is never seen while a goroutine of the
	// holding process waits, and starves.
	ExtendOnFirstLook bool
}
