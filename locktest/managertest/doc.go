// Package managertest is the functional suite of the lock manager: seed
// 003's functional scenarios (§4.2) run against any
// lockstep.GroupLocker. It is test support, imported only by tests, built as
// package locktest is: queuelock, combined, shadowlock and migration run it
// on the model inside a testing/synctest bubble (virtual time), and package
// cassandra runs it on a real Cassandra under the integration build tag.
//
// The scenarios:
//
//   - Counter (seed scenario 1): N clients, each its own Locker, increment a
//     shared counter K times under an Exclusive lock; the counter ends at
//     N·K, and no two clients are ever inside at once. Half the clients take
//     the lock with Lock, half with LockGroup, which must exclude each
//     other. CounterWithReaders adds readers holding the id Shared: the
//     counter is two fields a writer sets one after the other, with a pause
//     between, and a reader must never see them differ; meanwhile two
//     readers must be able to hold the id at once.
//   - Directories (seed scenario 2): nested directories d1/…/dD, D = 1…5,
//     each named by a lock (Separator "/"). Client 1 creates a file in the
//     bottom directory (an Exclusive lock on it, so intention locks on every
//     ancestor); client 2 deletes the directory at level 1…D (an Exclusive
//     lock on it), client 1 first, then client 2 first, then both at once.
//     The file system is modelled in memory and checked inside the critical
//     sections: a file is never created in a deleted directory, and a
//     directory is never deleted while a create inside it is under way.
//   - Reentrant (seed scenario 3): one unit of work (lockstep.Unit)
//     takes an id Exclusive twice and releases it twice, then Shared twice
//     and releases twice, with no error and no wait for itself; the id stays
//     held until the balancing release and is free after it (another
//     Locker's TryLock succeeds); asking Exclusive while holding Shared fails
//     with lockstep.ErrUpgrade.
//   - DeadlockPair, DeadlockTriangle, DeadlockShared and ReentrantDetecting, on
//     Lockers with deadlock detection (Env.NewDetecting; skipped without):
//     two clients take a then b and b then a, each as one unit of work
//     (a reentrancy holder) with a comment; exactly one gets
//     lockstep.ErrDeadlock, whose cycle names both waits, owners and
//     comments, releases what it holds, and the other proceeds. The
//     triangle does the same with three clients on dir/a, dir/b and dir/c
//     (flat a, b, c where every access is exclusive). ReentrantDetecting is
//     scenario 3 with detection on while another unit waits for the id:
//     nothing is reported. DeadlockShared is the pair asking Shared: where
//     the Locker takes every access exclusively (Env.ExclusiveOnly) exactly
//     one gets lockstep.ErrDeadlock, its cycle in Exclusive, the access
//     really taken; elsewhere both proceed and nothing is reported.
//   - UnlockAll (seed 003, Appendix A): a holder's locks taken by Lock (one
//     reentrantly) and by a group, on hierarchical ids, are all released by
//     the unit's one UnlockAll call, another unit's are not, and the
//     handles' own Unlock then returns nil.
//   - Mask (seed 003's MASK query): "dir/*" held Exclusive excludes
//     children, grandchildren, a child named for the first time and dir
//     itself, and nothing outside dir; held Shared it shares.
//
// Which ids a Locker's Lock and groups take is the Locker's business; the
// suite checks only what a user sees: exclusion where the accesses
// conflict, sharing where they do not, and the data the locks protect.
package managertest
