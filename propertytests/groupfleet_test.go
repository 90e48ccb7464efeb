package propertytests

import "testing"

// The lock-manager fleets: processes take lock groups of 1–3
// requests over the hierarchical id space groupIDs, in weighted accesses,
// by LockGroup, TryLockGroup or Lock, some cancelled while they wait
// (groupuser_test.go), under the random phase's faults. After every action
// no two holders with Lost() open may have asked, ancestors implied, for
// one id in incompatible accesses (G1, accesscheck_test.go). In the quiet
// phase some waiter must acquire within livenessBound (deadlock freedom,
// liveness_test.go); where the fleet asks for them, every pending group
// acquisition completes within groupWaitBound of its plan (G2), and no wait
// is overtaken at its first member by later incompatible requests more than
// bypassBound times (G3).
//
// A schedule of a fleet asking G2 costs about five of "new" (its quiet
// phase lasts as long as the bound of the largest plan, up to 5 members ×
// livenessBound), one of the other two about twice one of "new" (measured
// in the seeded sweep, 300 schedules each): their sweepDivisor keeps the
// seeded sweep's cost within that of two plain fleets or so.
var managerFleets = []fleet{
	{name: "new/manager", kinds: []kind{managerQueue, managerQueue, managerQueue}, sweepDivisor: 4,
		groups: &groupSpec{sep: groupSep, bounded: true, fifo: true}},
	// Two user goroutines of p0 on one Locker (refinement 6 with accesses:
	// in-process turns by access), beside a third process. p0's Locker
	// keeps its intention owner cells in the intention range
	// (Options.IntentionRange, section 4.14), the third's does not: the mix
	// of a rollout of the option, whose claims must see each other's
	// conflicting holders either way.
	{name: "new/manager-two-goroutines", kinds: []kind{managerQueueRanged, managerQueueRanged, managerQueue}, shareFirst: true, sweepDivisor: 4,
		groups: &groupSpec{sep: groupSep, bounded: true, fifo: true}},
	// The rollout fleets. Combined takes every member exclusively, both
	// halves (docs/algorithms.md, section 6.3). It once took the queue half in
	// the member's access: compatible queue holders of one id then all
	// contended on the legacy half, whose lock is not FIFO, and this fleet
	// found G2 broken (a combined process re-taking a/b:S, hence the legacy
	// half of "a", every 2.1 s kept another's a:S waiting beyond 12 s).
	// Legacy takes every member exclusively and is not FIFO: beside it only
	// deadlock freedom is asked.
	// Its schedules are the costliest of all (2 a second in CI's sweep at
	// divisor 2, 405 s of the lane's 1,072): one in four.
	{name: "combined+new/manager", kinds: []kind{managerCombined, managerCombined, managerQueue}, sweepDivisor: 4,
		groups: &groupSpec{sep: groupSep, bounded: true, fifo: true}},
	{name: "legacy+combined/manager", kinds: []kind{managerLegacy, managerCombined, managerCombined}, sweepDivisor: 2,
		groups: &groupSpec{sep: groupSep}},
	// Masks beside the ids they name (maskIDs): "a/*" and "a/b/*" drawn in
	// every access, those in IS, IX and SIX refused with ErrInvalidID, the
	// others held as their parent. Access exclusion judges a mask by every
	// child it names (maskcheck_test.go). Two queue processes and a
	// combined one: the queue lock takes the parent in the mask's access,
	// combined every member exclusively.
	{name: "combined+new/manager-mask", kinds: []kind{managerQueue, managerQueue, managerCombined}, sweepDivisor: 4,
		groups: &groupSpec{sep: groupSep, bounded: true, fifo: true, ids: maskIDs}},
	// Per-query flags on the mask fleet's ids (docs/algorithms.md, section
	// 8.9): each request draws lockstep.Flat, NoMask, both or none, so
	// flat and hierarchical queries of the same ids meet. A Flat request
	// naming a path and a NoMask one naming a mask are refused with
	// ErrInvalidID; the others are planned as without flags. Access
	// exclusion judges every holding by the fleet's one reading of ids,
	// whatever its flags.
	{name: "combined+new/manager-flags", kinds: []kind{managerQueue, managerQueue, managerCombined}, sweepDivisor: 4,
		groups: &groupSpec{sep: groupSep, bounded: true, fifo: true, ids: maskIDs, flags: true}},
}

func TestManagerFleet_AccessExclusionAndStarvationFreedom(t *testing.T) { checkFleet(t, "new/manager") }

func TestManagerFleetTwoGoroutinesOneLocker_AccessExclusionAndStarvationFreedom(t *testing.T) {
	checkFleet(t, "new/manager-two-goroutines")
}

func TestManagerCombinedNewFleet_AccessExclusionDeadlockFreedomAndBypass(t *testing.T) {
	checkFleet(t, "combined+new/manager")
}

func TestManagerLegacyCombinedFleet_AccessExclusionAndDeadlockFreedom(t *testing.T) {
	checkFleet(t, "legacy+combined/manager")
}

func TestManagerMaskFleet_AMaskExcludesEveryChildItNames(t *testing.T) {
	checkFleet(t, "combined+new/manager-mask")
}

func TestManagerFlagsFleet_FlatAndHierarchicalQueriesOfOneIDExcludeEachOther(t *testing.T) {
	checkFleet(t, "combined+new/manager-flags")
}
