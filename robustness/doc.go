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
// Lock-manager workers run beside the plain ones in two fleets: units of
// work taking ids nested in random orders under deadlock detection (every
// ErrDeadlock must have had a cycle in the recorded history), and holders
// handing their queue locks over to another process mid-hold (an owner's
// sharers count as one holder; no third inside a handover).
//
// It is a module of its own, so that its dependencies stay out of the
// library's go.mod.
package robustness
