// Package manager is the lock manager of every Locker of this module:
// lock groups, hierarchical ids and opt-in reentrancy (after seeds 003 and
// 004), applied once, at the outermost Locker. It depends on the root
// package and on internal/held (loss signals), internal/deadlock and
// internal/lifecycle, never on a store or on a Locker: what an access means
// in the store is the Locker's business (docs/algorithms.md, section 4.2,
// for the queue algorithm).
//
// # One Locker over one Algorithm
//
// Every Locker of this module is a [Locker] (locker.go) over one
// [Algorithm]: queuelock's over the queue lock (internal/queue),
// shadowlock's over the legacy lock (internal/shadow), combined's over
// the combined lock (internal/combine), migration's over its mode switch,
// which admits each acquisition and then calls the chosen mode's
// algorithm. The public packages define their Locker as this type
// (type Locker manager.Locker) and build it; groups, hierarchy,
// reentrancy, deadlock waits, unlock-all, masks, the AcquireEvent and
// Close are written here once. An Algorithm knows one acquisition of one
// flat id:
//
//	Take(ctx, a *Acquisition) (held.Spec, error) // the parts taken, their loss signal, the token
//	Close(ctx) error                             // after the Locker released its locks
//
// The Locker calls down into it and it calls nothing of the Locker (the
// house rule "calls flow down"; an injected interface is ordinary Go, as
// bufio.Reader over an io.Reader). A Locker's Lock, TryLock, LockGroup and
// TryLockGroup drive a [Run] of the Manager:
//
//	run := m.Start(ctx, reqs, try)
//	for run.Next() {
//		run.Done(l.one(run.Step())) // validate, register (Close ends ctx), alg.Take, hold, AcquireEvent
//	}
//	return run.Result()
//
// The Run is a small state machine (run.go): Next plans the next member,
// counts what a reentrancy holder already holds (no step) and, under
// deadlock detection, starts the step's published wait; Done ends that
// wait, records the member or, on error, releases what the run took; Result
// is the group Lock or the error. So a Lock enters the lock manager once,
// at the outermost Locker, whatever algorithms lie below it: a migration
// Lock in mode combined runs one Run, whose step calls the mode switch's
// Take, which calls the combined algorithm's Take, which takes the two
// cores' parts.
//
// # The plan
//
// Manager.Plan turns the caller's requests into the members an acquisition
// takes: with a separator, each request's ancestors in its intention access
// (lockstep.Access.Intention: IS below a reader, IX below anything else), so
// "a/b/c" in X also takes IX on "a" and "a/b"; each id once, in the Join of
// what was asked of it (S and IX on "a" become SIX); ids ascending bytewise.
// Under a separator every path segment must be non-empty ("a//b", "/a" and
// "a/" are refused), so each ancestor is a well-formed id of its own and
// "a/" cannot quietly name a second child of "a". A last segment of
// exactly "*" makes a mask (seed 003's MASK): "a/b/*" names every child of
// "a/b" and is planned as "a/b" in the same access, which covers them all
// (docs/algorithms.md, section 8.6); "*" anywhere else is refused, and so
// is a mask in an intention access, which "a/b" in that access would not
// make exclude a child's writer.
//
// A request's lockstep.Flags only declare how its caller reads the id
// (seed 003's per-query HIERARCHY and MASK): Plan refuses a Flat request
// whose id has ancestors and a NoMask request naming a mask, and plans
// every other request as if it had no flags. So every acquisition of a
// Locker is planned under its one separator, and flat and hierarchical
// queries of one id exclude each other (docs/algorithms.md, section 8.9).
// The planted defect TestingKnobs.FlatPaths takes a flat path as one name,
// without its ancestors' intention locks; the model checks' fleet
// combined+new/manager-flags catches it.
//
// Ancestors sort before their descendants: an ancestor is a proper prefix
// of its descendant's id, and in bytewise order a proper prefix sorts
// before every extension of it. So the canonical order locks a hierarchy
// top-down, as multi-granularity locking requires (Gray et al., 1975): a
// process holds the intention lock on "a" before it asks for "a/b", so an S
// or X holder of "a" is met at "a", and a request on "a" conflicts with every
// holder below it, whose intention locks are on "a".
//
// # Deadlock freedom: canonical order and FIFO queues
//
// Every acquisition of a group takes its members in the canonical order and
// holds them until the group is released; each member waits in its id's FIFO
// queue (queuelock grants a request when it is compatible with every earlier
// live request and every owner). Then no set of groups waits in a cycle:
//
//   - A process waits for at most one id at a time, and only for an id above
//     every id it holds (it took them in ascending order).
//   - Its waits-for edges go to the holders of that id, and to the earlier
//     waiters of the same id (FIFO: a later request never overtakes them).
//   - A holder of id x that waits at all waits for an id above x, so the
//     edge to it increases the waited-for id strictly; an earlier waiter of
//     the same id waits for that same id at an earlier queue position.
//
// So along any chain of waits-for edges the pair (waited id, queue position)
// strictly increases in id or, for the same id, strictly decreases in
// position; it never decreases in id. Ids and positions are finite, so a
// chain cannot return to where it began: there is no cycle. The argument
// needs the order to be total and shared by every process, which the
// bytewise order of ids is, whatever the separator; it also needs each
// Locker's in-process turns to be FIFO per id, as queuelock's are. A
// process that holds a group and then starts another acquisition outside
// it (nested Lock calls in an order of its own) is outside the argument,
// as with any lock. The planted defect TestingKnobs.GroupUnordered takes
// the members in the caller's order instead; the
// test manager_bugs_test.go shows two opposite groups then deadlock, and
// the model checks' negative control catches it.
//
// A group of accesses is as deadlock-free as one of exclusive locks: a
// shared member only shortens waits. Lock modes do not create upgrades
// inside a group, because each id is taken once, in the Join of what the
// group asks of it.
//
// # Failure, loss and release
//
// When a member cannot be taken (ctx ended, a busy member under TryLock, a
// store error), the Run releases the members it took, last first, with a
// context that the caller's cancellation does not end, and returns an error
// that names the member and wraps the cause. The Lock it returns has one
// Lost, closed when any member's lease is lost: a member whose lock has a
// *held.Loss forwards it with OnFire, with no goroutine; other locks are
// watched by one goroutine per group, stopped by the first Unlock. Lost
// also runs every member's deadline check (its Lost, without blocking), so
// a passed deadline is seen at once. Unlock releases the members last first
// and retries only those whose release failed.
//
// # Losing a member
//
// A group is held only while every member is. Members are taken one after
// another, and a member taken early can lose its lease while a later one
// is awaited (its renewals stalled by the store or the network, or by a
// keyspace the process is cut off from). Such a group is never returned:
// once the last member is taken, the Run checks every member's lease
// (Lost, without blocking, which runs its deadline check) and, if one is
// lost, releases all of them and fails with an error naming that member
// and wrapping lockstep.ErrLost. Nothing holds the lapsed member's id for
// the caller any more: another process may have taken it in between, so
// retrying the member in place would be a new acquisition out of canonical
// order; the caller takes the group again. Two consequences matter to the
// safety argument: a returned group's Lost() is open when it is returned,
// and each member's fencing token was drawn (by its Locker, after its
// claim) under a lease that was still running when the group was returned,
// so the tokens' order is ownership order for every member (fence/doc.go).
// The planted defect TestingKnobs.GroupReturnsLostMember returns such a
// group; the model checks' lease property refuses any group returned with
// Lost() closed, and their negative control catches the defect.
//
// # Reentrancy
//
// For a unit of work (a Locker's Unit, lockstep.Unit: Who.Holder) the
// Manager keeps a registry of what each holder holds, keyed by (holder,
// id). A member the holder already
// holds in an access that Covers the request is granted at once, with no
// store request, and counted; one held in a weaker access fails the
// acquisition with an error wrapping lockstep.ErrUpgrade (waiting would be
// waiting for oneself), after releasing what the call took. Note that under
// a hierarchy this includes intention locks: a holder of "a/b" in S holds
// IS on "a", so asking for "a/c" in X (IX on "a") is an upgrade. Each
// member's lock is unlocked by the Unlock that drops its count to zero, and
// its registry entry is deleted then, so the registry holds only what is
// held. A member held through an earlier Lock whose lease was lost is not
// counted: the acquisition fails with an error wrapping lockstep.ErrLost
// that names the id and that Lock's Owner() and says to unlock it first
// (lostheld.go); after that Unlock the id is taken afresh. A second acquisition by the same holder while its first is still
// waiting for the id waits for that first one's outcome, as it would in the
// id's queue. Without a holder the registry is not touched. What
// reentrancy promises is only this bookkeeping: the unit is the caller's
// explicit unit of work, and two goroutines sharing a unit share its
// locks, so they must not need exclusion from each other.
//
// # Deadlock detection
//
// Units of work that take their locks in calls of their own, in orders of
// their own, are outside the canonical order and can wait in a cycle. A
// Locker built with a lockstep.DeadlockDetection gives New a
// *deadlock.Detector, and every blocking take of a group's member then runs
// as a wait of the detector: the Run's Next starts it (Detector.Begin) and
// hands the Locker a step whose ctx the detector cancels if this wait is
// the victim of a cycle; Done ends it (Wait.Finish). The detector never
// calls the take. The waiting identity is the reentrancy holder, or the
// run without one; its holdings are the registry's granted members of the
// holder, or the members the run took. A wait longer than After is
// published, and if it is the victim of a cycle (internal/deadlock,
// docs/algorithms.md section 8.5) the take ends with its ctx, Done turns
// its error into a *lockstep.DeadlockError and the Run releases what it
// took, as for any failed member. Two orders make a visible record true: a
// wait's record is deleted before the Run's abandon runs (Finish deletes it
// before Done goes on), and a reentrant member whose last reference drops
// is withdrawn from every record of its holder before its lock is unlocked
// (unlockMember). TryLock and TryLockGroup never wait, so they publish
// nothing, and a reentrant request is counted or refused without a wait.
//
// Waits and holdings are published in the access the Locker really takes.
// An Algorithm that takes a member more strongly than asked — the legacy
// and combined locks every member exclusively, and so migration's in modes
// legacy and combined once the acquisition has chosen its mode — calls
// Acquisition.Takes (Step.Take) from its Take: the wait's next record asks for that access
// (deadlock.Wait.Takes), and the member records it (member.heldIn), so a
// holding keeps the access it was taken in, whatever mode later ones use.
// Reentrancy still counts the access asked. A stronger access adds only
// true edges: the lock is held, or waited for, exclusively
// (docs/algorithms.md, 8.5, "The access taken"). The knob
// PublishAskedAccess ignores Take, as the first version did.
//
// # Unlock-all
//
// The Manager also keeps, per reentrancy holder, the group Locks it
// returned and that are not yet released; UnlockAll (seed 003's unlockAll)
// unlocks each of them as its own Unlock would, so everything the holder
// holds through this Manager is released and the handles' later Unlock
// returns nil. Acquisitions without a holder are not tracked.
//
// # Adopted groups
//
// A Locker whose Algorithm continues another process's group (an Adopter:
// lockstep.Sharer's Adopt; docs/algorithms.md, section 8.7) wraps the
// member locks it adopted with Adopted (Locker.Adopt): the same ID and
// Members as the giver's group, one Lost and one Unlock, and no reentrancy
// holder (the giver's holder is a value of the giver's process). Nothing
// of the registry is touched. A Unit's Adopt uses AdoptedFor instead: the
// members are registered as the holder's and the group is one of its
// handles, as if the holder had taken it. A member the holder already
// holds by the same acquisition (HeldFor) is not adopted again (the
// Adopter skips it) but counted, as a Lock of the holder counts it: locks
// handed over one by one that share a member (siblings sharing their
// parent's intention lock) join again as they were at the giver.
package manager
