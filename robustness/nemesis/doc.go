// Package nemesis injects faults into the suite's 3-node cluster (package
// cluster) and into client processes. Every nemesis implements [Nemesis]:
// Inject and Heal are idempotent, and Heal undoes Inject completely.
//
//	partition   nftables: drop a node's outgoing storage traffic (port 7000)
//	            to a peer, matched by 'socket cgroupv2' on the node's cgroup
//	            (every node dials its peers from 127.0.0.1 addresses that
//	            address rules cannot tell apart). Shapes: isolate one node,
//	            bridge (1 and 3 cannot talk, 2 talks to both), halves (a
//	            random node against the other two: with 3 nodes the halves
//	            are a majority and a minority), one-way (a node's messages
//	            to one peer are lost, the reverse still arrives). Heal
//	            deletes the table.
//	loss        nftables 'numgen random': drop a share of the packets on a
//	            link in both directions (no netem in this kernel).
//	pause-node  SIGSTOP the node's JVM; heal SIGCONT.
//	kill-node   SIGKILL the JVM (scripts/cassandra kill); heal restarts it
//	            and waits until the cluster sees it.
//	pause-client SIGSTOP a worker process (pid given when injected) for
//	            longer than the lock TTL; heal SIGCONT.
//	skew        the node's OffsetClock file: a fixed offset (bump, + or −)
//	            or a strobe (alternating 0 and the offset); heal writes 0.
//	slow        CPU quota on the node's cgroup (v1 cpu.cfs_quota_us or v2
//	            cpu.max); heal removes the quota.
//	dc-partition on a cluster of two data centres only: nftables drops the
//	            storage traffic between dc1's nodes and dc2's, both ways,
//	            and the CQL traffic of each data centre's client cgroup
//	            (cluster.ClientGroup) to the other's nodes. Heal deletes
//	            the table.
//
//	kill-lockd  SIGKILL a lockd of the segment once a client of it has just
//	            acquired (waiting up to 3 s); heal restarts it on its
//	            address (the runner's Lockds).
//	pause-lockd SIGSTOP such a lockd for its lock TTL plus 1–2 s (its
//	            leases lapse); heal SIGCONT.
//	cut-lockd-client stop the proxy between one client and its lockd from
//	            forwarding, both ways, for the session TTL plus 1–2 s;
//	            heal forwards what waited.
//
// The lockd nemeses act on the runner's lockds (Lockds), not the cluster:
// LockdSchedule draws them for a track of their own that runs beside the
// cluster's schedule, and each says which clients it affects (Affecting).
//
// Cleanup removes everything any nemesis could have left on the machine
// (the nftables tables of this cluster, stopped processes, offsets,
// quotas); the runner calls it on every exit path.
//
// A [Schedule] is a seeded plan of nemesis events: the same seed and
// duration give the same schedule, which is printed before it runs.
package nemesis
