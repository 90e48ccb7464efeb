// Command lockbench runs the lock benchmarks of BENCHMARKS.md.
//
// With no arguments it runs seed 000's experiment (§6, tables 1–2) on the
// embedded backend: P = 1, 3 and 5 processes each take one lock id K times
// with the new, legacy and combined algorithms, and it prints the mean, p50,
// p99 and max acquisition wait, max/mean, Jain's fairness index and the
// sequential store requests per acquisition and release. -csv and -png
// write the table and a plot of acquisition moments per process (the seed's
// figures 1–2).
//
// Scenarios (-scenario):
//
//	seed        the seed's experiment (default)
//	roundtrips  sequential store requests of one uncontended acquire + release, per mode
//	tombstones  read cost (tombstones stepped over) at the start and the end of
//	            100,000 sequential acquisitions of one id, floor read against a naive one
//	peers       throughput, handoff latency and fairness on one hot id against a
//	            Cassandra LWT lock and etcd's concurrency.Mutex (real backend only)
//	scale       8 processes (one Locker each, 8 acquisition loops on it) × 1,000 ids ×
//	            mixed holds (1 ms 60%, 10 ms 30%, 100 ms 10%) for -duration: acquisitions/s,
//	            p99 wait, store reads and writes per acquisition, heap per Locker; with
//	            the LWT lock beside it on the real backend (scale.go)
//	rollout     a fleet through every migration phase (legacy, combined, new and back)
//	manager     seed 003's performance scenarios on lock groups of hierarchical ids
//	            (manager.go): 1, the rate of acquiring M disjoint locks of depth L;
//	            2, acquire and release times of one lock beside M held, and the heap;
//	            3, the rate when P % of the names are shared; N clients, L = 1…5;
//	            with the LWT lock beside it on the real backend
//	service     lockd's benchmark (service.go; real backend only): one hot id
//	            through the library in-process (the queue lock, mode new), through a
//	            lockd (the real cmd/lockd, which lockbench builds, starts on loopback
//	            on the bench keyspace moved to phase new, and stops), through etcd's
//	            lock service (v3lock), etcd's Mutex and etcd-nextrev (the Mutex's
//	            queue without its wait for etcd's 100 ms unsynced-watcher loop);
//	            1, 5 and 20 clients: Lock and Unlock latency, throughput, handoff,
//	            and each service's plain-request latency, with a verdict per
//	            target. -algorithms naming only etcd-lock, etcd and etcd-nextrev
//	            runs on etcd alone, without -backend
//	cohort      local handoff (queuelock.Options.LocalHandoff): P processes (default 2)
//	            × -goroutines (5) on one Locker each take one hot id for -duration; the
//	            new algorithm without (new) and with it (new-local, -local-handoff,
//	            default 8): throughput, handoff p50 and p99, the longest wait and the
//	            longest wait after another process's holder (a remote waiter's),
//	            Jain's index over processes (cohort.go). On sim the processes share
//	            a model store on virtual time; on cassandra (cohort_real.go) each is
//	            a Locker of its own with its own process id and gocql session, all in
//	            one OS process, on wall time;
//	            -algorithms new-retain adds retained ownership (-retain, default 20ms)
//
// On the peers scenario -png draws the handoff-latency CDF per algorithm,
// one panel per contender count (cdf.go); on the manager scenario the rate
// against N per depth (perf 1), and against P per N (perf 3, to the file
// with -overlap before its extension; manager_plot.go). scripts/bench-headline
// runs every real-backend figure of BENCHMARKS.md's headline on a 1-node and a 3-node
// cluster (-replication 3: the store at QUORUM, the LWT lock's Paxos at
// SERIAL) and prints the tables.
//
// Backends (-backend): sim, the in-memory Cassandra model with a latency per
// request on virtual time (a discrete-event simulation whose figures do not
// depend on this machine's speed or load); and cassandra (-hosts), a real
// cluster, where every process of a run is a separate OS process: lockbench
// re-executes itself with the hidden -worker flag. The etcd peer's workers
// are a separate program in a module of its own (etcdpeer/, so that the etcd
// client stays out of the library's go.mod), which lockbench builds with the
// go command when a run includes etcd, etcd-nextrev or etcd-lock;
// the lockd peer's likewise (lockdpeer/, which keeps Connect and lockd's
// generated client out of lockbench's go.mod).
//
// lockbench is itself a module of its own (module
// github.com/lockstep-go/lockstep/cmd/lockbench, which replaces the library
// with ../..), so that the library's go.mod carries only what the library
// needs: the plot's font (golang.org/x/image) is lockbench's alone. Run it
// from the repository root with `go run -C cmd/lockbench .` (file arguments
// are then relative to cmd/lockbench) or from here with `go run .`.
package main
