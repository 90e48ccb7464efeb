package bugs

// Defect names a planted defect that only a build with the lockstep_bugs tag
// can switch on (Plant, Planted). These restore, for the model checks'
// negative controls, defects that users found in released code (the safety
// issue): unlike the per-acquisition switches of Set, they live in code that
// no normal build contains.
type Defect string

const (
	// HalfTTLLease restores the old lease window: TTL/2 from the send,
	// whatever the TTL, ignoring whole-second expiry and server clock skew,
	// and accepts any TTL of at least one second.
	HalfTTLLease Defect = "half-ttl-lease"
	// WallClockLease measures lease deadlines and claim-in-time checks on the
	// wall clock (Clock.Now) instead of elapsed time, so a wall-clock step
	// back keeps Lost() open.
	WallClockLease Defect = "wall-clock-lease"
	// UncheckedToken returns a lock with the fencing token drawn after the
	// claim without checking that the lease was still valid when the token
	// arrived, and with token 0 when the draw failed.
	UncheckedToken Defect = "unchecked-token"
	// StaleOwnerColumn lets a queue-lock handle inherit its Locker's owner
	// column among the cells a failed cleanup of its attempt left behind,
	// so a retried Unlock deletes it even while a newer acquisition of the
	// same Locker holds the id: a real bug review found, which the
	// two-goroutine fleet's owner-cell check then found too.
	StaleOwnerColumn Defect = "stale-owner-column"
	// KeepIDState never frees a Locker's per-id state (read floors,
	// contention hints) and publishes the floor cell without a TTL.
	KeepIDState Defect = "keep-id-state"
	// LegacyLossUnwatched leaves a combined lock's legacy lease out of its
	// loss signal: the lock reports lost only when its queue lease is, so a
	// holder whose legacy renewals fail works on after its legacy cell
	// expired and a legacy process took the lock. The composition redesign
	// (one held lock, no merge goroutine) must keep both leases in one
	// signal.
	LegacyLossUnwatched Defect = "legacy-loss-unwatched"
	// SkipForeignCells makes a queue-lock read log a cell of the lock's
	// partition that it cannot parse and go on without it, as it did before
	// a foreign cell became an error the caller sees: an owner cell naming
	// no owner is then not counted by lemma 1's check.
	SkipForeignCells Defect = "skip-foreign-cells"
	// DrainSkipsRecheck makes a migration.Controller commit the target
	// phase right after writing the intent, trusting the census read that
	// ended its drain instead of reading the census again after the intent:
	// a process that began using a mode the target forbids between that
	// read and the intent is committed past.
	DrainSkipsRecheck Defect = "drain-skips-recheck"
	// LostTrustsScheduler makes a lease's Lost and IsLost trust the
	// renewal scheduler to close Lost at the deadline, instead of checking
	// the deadline themselves: with one goroutine watching every deadline
	// of a Locker the per-call check looks redundant, but the scheduler
	// wakes late whenever its process was paused (or its sleep was not
	// granted in time), and a holder that looks at Lost first then works
	// past the deadline.
	LostTrustsScheduler Defect = "lost-trusts-scheduler"
	// RenewFromStart dates a lease's first renewal from Start instead of
	// from the winning write's send: an acquisition slower than
	// Window − Renew loses a healthy lease before renewing once (found by
	// the robustness suite on a real node).
	RenewFromStart Defect = "renew-from-start"
	// CensusUnbound leaves a lock taken through migration.Locker out of its
	// census epoch: when the heartbeat goes stale (the Controller may no
	// longer see the process), the lock's Lost stays open. The composition
	// redesign replaced the goroutine merging the two signals with a binding
	// of the epoch to the lock's loss signal.
	CensusUnbound Defect = "census-unbound"
	// CombinedOverlapUnsafe sends a combined acquisition's legacy shadow
	// read and main re-read (listing 4, steps 8 and 10) together instead
	// of one after the other's reply: the one pair of the overlapped round
	// whose order the legacy argument needs (docs/algorithms.md, section 6.1). A read of
	// main that overtakes the shadow read can miss a holder's main cell
	// whose shadow cell the shadow read no longer sees: two holders.
	CombinedOverlapUnsafe Defect = "combined-overlap-unsafe"
	// GroupUnordered makes internal/manager take a group's members in the
	// caller's order, each request before its ancestors' intention locks,
	// instead of the canonical order (ids ascending, ancestors first): two
	// groups naming the same ids in opposite orders can then each hold one
	// and wait for the other for ever.
	GroupUnordered Defect = "group-unordered"
	// SkipIntention makes internal/manager plan a hierarchical lock without
	// the intention locks on its ancestors: a lock on "a/b" and one on "a"
	// then share no id, and both hold at once.
	SkipIntention Defect = "skip-intention"
	// CombinedSharedQueueHalf makes a combined acquisition take its queue
	// half in the access asked for instead of exclusively, as it first did:
	// every compatible holder of the queue lock then contends on the legacy
	// half, whose lock is not FIFO, and a reader can be starved there
	// (docs/algorithms.md, section 6.3; found by the combined+new/manager fleet).
	CombinedSharedQueueHalf Defect = "combined-shared-queue-half"
	// RetryNeedsFreeID makes a queue lock's retried Unlock delete its owner
	// cell only when no goroutine of its Locker holds or awaits the id, as
	// the first design with turn slots did: a reader whose first delete
	// failed leaves its slot's owner cell while another slot holds, and a
	// writer of another process is kept out for a TTL after both released
	// (found by review, queuelock/access_release_test.go).
	RetryNeedsFreeID Defect = "retry-needs-free-id"
	// GroupReturnsLostMember makes internal/manager return a group whose
	// member was lost (its lease lapsed) while later members were being
	// taken: the group comes back with Lost() already closed and that
	// member's token from a lease that ended, as it first did (found by
	// CI's rapid fleets, legacy+combined/manager and
	// new/manager-two-goroutines).
	GroupReturnsLostMember Defect = "group-returns-lost-member"
	// The three Deadlock defects are read once, by internal/deadlock's
	// Knobs.planted, into that package's Knobs, which a Locker could pass
	// in directly.
	//
	// DeadlockUndetected makes the deadlock detector (internal/deadlock)
	// publish its waits but never fail one: a cycle of waits lasts until
	// its members' contexts end.
	DeadlockUndetected Defect = "deadlock-undetected"
	// DeadlockVictimUnshared makes every process rank its own wait below
	// every other (as a rule that compares by the reader's own view would),
	// instead of by the (start, name) every process reads alike: each member
	// of a cycle takes another for its victim, and none fails.
	DeadlockVictimUnshared Defect = "deadlock-victim-unshared"
	// DeadlockBystander makes a waiter fail as a cycle's victim when it
	// sees a cycle among waits ranked below its own, whether or not its own
	// wait is part of it: a bystander that merely waits last reports a
	// deadlock it is not in.
	DeadlockBystander Defect = "deadlock-bystander"
)
