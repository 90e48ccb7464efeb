// Command robustness is the runner of the robustness suite
// (ROBUSTNESS.md): it starts its own 3-node Cassandra cluster (package
// cluster: RF 3, QUORUM, its own IP offset and state dir, every node in a
// cgroup of its own, clocks skewable at run time), and runs a sequence of
// segments, each with its own keyspace, register server and history
// directory:
//
//	fleets    new; legacy; combined; legacy+combined; combined+new; and a
//	          rollout in which a migration Controller (lockctl phase set)
//	          moves the phase legacy → combined → new and back while the
//	          workers' flag files follow
//	controls  ctl-legacy+new (old binaries bypassing migration: must be
//	          caught), ctl-unfenced (client pauses longer than the TTL:
//	          lost updates on the unfenced counter, none on the fenced
//	          register), ctl-planted (workers with --plant, a planted lease
//	          defect: must be caught),
//	          ctl-skip-intention (the lock manager without intention locks,
//	          planted: the access checker must catch it; its last two
//	          workers are lock-manager workers with made-up ErrDeadlocks
//	          and givers leaving before their successor adopts, planted:
//	          the deadlock and transfer checkers must each catch theirs;
//	          its first two run two goroutines each with local handoff
//	          planted with ReuseToken: the tokens checker must catch it),
//	          ctl-lockd-ignores-lost (a Go lockd worker that ignores Lost,
//	          and a Python one whose moves skip the adoption, both
//	          planted in the workers; their lockd paused mid-hold: the
//	          mutex model and lockd-loss must each catch theirs; a fixed
//	          15 s, sharing new's keyspace; two added
//	          lock-manager workers with deadlock detection planted away,
//	          whose cycles the cycle checker must catch); a control window
//	          in which no checker catches it gets another, up to
//	          controlWindows, and only one no window catches fails
//
// In the fleets new and combined+new three workers, added after the plain
// ones, take their locks through lockd (lockd.go, lockdclients.go): the
// runner builds lockd/cmd/lockd, starts two lockds on the segment's
// keyspace (--lock-ttl 6s, the TTL every worker of those two fleets runs
// at too, one TTL per table; one --peer-key-file; --evidence use, as every
// worker of those fleets: the tokens of locks of mode new drawn beside
// their claims, every process recording the tokens it held, the combined
// ones included), and gives each of those
// workers a proxy of its own to each lockd (proxy.go), through which it
// holds one lockd session at a time (TTL 2 s, lockd's lease window for
// that lock TTL: the rule lockd/cmd/lockd documents). The first, an
// rbworker, is given l1 alone; the second (rbworker) and the third (the
// Python worker, robustness/pyworker, run by the python of a venv the run
// makes with lockd/python installed) are given both, l2 first, and fail
// over; their moves go to the segment's moves/ directory. A seeded lockd
// track (nemesis.LockdSchedule: kill-lockd, pause-lockd, cut-lockd-client,
// rotating across the two segments; lockdnemesis.go) runs beside the cluster's schedule,
// printed under it; the final heal restarts, resumes and reconnects what
// it left. The check's lockd-loss checker gets the track's events, and the
// summary counts the lockd nemeses by kind.
//
// With --dcs 2 the cluster is two data centres (dc1 = nodes 1 and 2, dc2 =
// node 3; NetworkTopologyStrategy {dc1: 2, dc2: 1}), dc-partition joins the
// kinds, and two segments join the run:
//
//	dc-scopes            workers alternating between dc1 and dc2, each
//	                     started in its data centre's client cgroup with a
//	                     session routed there, taking global locks (QUORUM)
//	                     and DC-local ones (LOCAL_QUORUM, --local-share 0.5,
//	                     tokens drawn beside the claims: Options.Evidence)
//	                     under DC partitions only; the check counts holds
//	                     per scope and data centre, and each data centre
//	                     must take DC-local locks during the partitions
//	ctl-dc-local-quorum  global locks served at LOCAL_QUORUM (planted) with
//	                     the data centres apart: must be caught
//
// In fleets combined and legacy+combined four lock-manager workers (rbworker
// --lockman-history; two of them added to --workers, two in place of plain
// ones), and in legacy and combined+new four added after the others, meet
// in slots: pairs and rings of three closing cycles of waits on
// purpose under deadlock detection, and transfers of queue locks between
// them, judged by the deadlock, cycle and transfer checkers; every nemesis
// but lockd's is passed to the cycle checker as a fault.
//
// In the fleet combined+new the two plain workers run two goroutines each
// (rbworker --goroutines 2 --local-handoff 2, handoff.go): a store hold
// passes between a worker's goroutines in memory (docs/algorithms.md
// §4.15), each goroutine judged as a holder of its own; the summary prints
//
//	robustness: local handoffs <N> (fleets combined+new)
//
// The fleets' workers but those make a share --manager-share (default 0.5)
// of their acquisitions through the lock manager: Shared locks, groups and
// hierarchical ids over lock-0, lock-1 and their children (rbworker).
//
// Each segment spawns rbworker processes, runs a seeded nemesis schedule
// (package nemesis; printed before anything runs, and the same for the same
// seed), heals everything, leaves a quiet period for the liveness check,
// and checks the histories with package check. The summary ends in
//
//	robustness: <N> operations, <M> nemesis events, <V> violations
//
// and the exit status is 0 when the fleets show no violation and every
// control was caught, 1 otherwise, 2 for bad usage, 3 when the harness
// itself failed (cluster, build). Every exit path tears down what the run
// started: workers, nftables tables, stopped or skewed or throttled nodes,
// the cluster and its cgroups; the last lines say what was checked.
//
// With --skew-sweep the run is the skew/TTL table of ROBUSTNESS.md
// instead: per TTL and skew, a legacy fleet with node 2's clock ahead by
// the skew for the whole segment, under faults that stall renewals (isolate, one-way,
// loss, pause-node); the findings are recorded, not judged, and printed as a
// table next to the prediction (TTL − 1 s + MaxServerSkew)/2.
//
// Usage (as root; scripts/robustness wraps it):
//
//	robustness [--minutes N] [--seed S] [--fleets LIST] [--controls=false]
//	           [--kinds LIST] [--ttl 4s] [--max-server-skew 1s] [--workers 4]
//	           (--ttl: every segment's but new's and combined+new's, at 6 s)
//	           [--dcs 1|2] [--ip-offset 60] [--dir /tmp/lockstep-robustness]
//	robustness --skew-sweep default|TTL:skew,skew;TTL:… [--seed S]
package main
