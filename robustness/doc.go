// Package robustness tests lockstep from outside, on a real 3-node Apache
// Cassandra cluster under faults: partitions, pauses, crashes, server clock
// skew, packet loss and slow nodes (the nemeses), with workers that are
// separate OS processes taking locks through the public API, and checkers
// that read the workers' histories afterwards (ROBUSTNESS.md).
//
// With --dcs 2 (CI's run) the cluster is two data centres, dc1 = nodes 1
// and 2, dc2 = node 3, keyspaces NetworkTopologyStrategy {dc1: 2, dc2: 1},
// and the run proves, beside the rest, what docs/multi-dc.md promises: under
// DC partitions (the dc-partition nemesis cuts the nodes and each data
// centre's workers from the other's) a global lock never has two holders
// across the data centres — the minority's holders lose their leases before
// the majority's acquire — and a DC-local lock never has two within one,
// while both data centres keep taking their DC-local locks; and a global
// lock served at LOCAL_QUORUM (the ctl-dc-local-quorum control) is caught.
//
// Workers also take their locks through lockd, the lock manager as a
// service (lockd/): in the fleets new and combined+new three workers go
// through two lockd processes the runner starts on the segment's keyspace
// (ordinary fleet processes following its phase, sharing a peer key, with
// --local-handoff 8 --retain 20ms), by
// TCP proxies the runner can cut, and a lockd track of nemeses runs beside
// the cluster's schedule: a lockd SIGKILLed mid-hold, one paused longer
// than its lock TTL, a client cut off from its lockd for longer than its
// session TTL. One of the three, a Go client, is given one lockd: every
// hold of it that spanned such an event must end by a loss report. The
// other two, a Go client and a Python one (robustness/pyworker, the Python
// client), are given both and fail over: none of their holds may be lost
// to a lockd event with its time still ahead (check's lockd-loss) — a
// loss that surfaced in an Unlock invoked while the lock was valid ends
// the hold at that Unlock, and is counted apart when the records show it —
// and the run counts their moves and times them. The checkers judge lockd holds
// with the in-process ones on the same ids, a lockd hold ending at the
// instant its client knew of the loss. The control ctl-lockd-ignores-lost
// (a Go worker ignoring Lost, and a Python worker whose moves skip the
// adoption) is caught by the mutex model and by lockd-loss.
//
// Lock-manager workers run beside the plain ones in four fleets: units of
// work taking ids nested in opposite orders on purpose under deadlock
// detection (every ErrDeadlock must have had a cycle in the recorded
// history, and no cycle the history makes certain may outlast the bound of
// Theorem 13 outside faults), and holders
// handing their queue locks over to another process mid-hold (an owner's
// sharers count as one holder; no third inside a handover).
//
// Local handoff (docs/algorithms.md §4.15) runs in the fleet combined+new:
// its two plain workers run two goroutines each on a migration Locker with
// LocalHandoff 2, each goroutine a holder of its own in the histories, so
// that two goroutines of one process holding one id at once is a
// violation; the tokens checker requires rising tokens in real-time order
// and along each store hold handed between goroutines, counts the local
// handoffs, and must catch the planted ReuseToken in the control
// ctl-skip-intention.
//
// It is a module of its own, so that its dependencies stay out of the
// library's go.mod (lockd's module among them).
package robustness
