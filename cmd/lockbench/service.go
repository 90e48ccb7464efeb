package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lockstep-go/lockstep"
)

// -scenario service measures the lock manager as a service (lockd) against
// the library in-process and against etcd's lock service, on one hot id,
// with 1, 5 and 20 clients by default, every client a separate OS process
// on this machine:
//
//	new        the library in-process, the queue lock (mode new): the
//	           algorithm lockd runs, with no service in between
//	lockd      the same through a lockd (lockdpeer.go): each client its own
//	           session, a Lock and an Unlock RPC per acquisition
//	etcd-lock  etcd's lock service, the v3lock Lock and Unlock RPCs
//	etcd       etcd's client-side concurrency.Mutex
//
// With one client it reports the uncontended latency of Lock, of Unlock and
// of the two together; with more, the hot-lock throughput and the handoff
// (summarizePeers). The lockd and etcd clients also time 100 plain requests
// each after their loop (a KeepAlive to lockd, a Get to etcd): a local round
// trip to the service, the unit of the target "the service adds at most one
// local round trip to the library's latency" (per call).

// serviceAlgorithms are the algorithms -scenario service runs, in table
// order.
var serviceAlgorithms = []algorithm{algoNew, algoLockd, algoEtcdLock, algoEtcd}

// serviceCounts are the client counts of -scenario service unless
// -processes is given.
const serviceCounts = "1,5,20"

// serviceStats are the figures of one service run.
type serviceStats struct {
	peerStats
	// lock, unlock and cycle are the latencies of Lock, of Unlock and of
	// the two (the cycle less the hold), over every acquisition but each
	// process's last.
	lockP50, lockP99, unlockP50, unlockP99, cycleP50, cycleP99 time.Duration
	// plain is the plain requests' latency (0: none timed).
	plainP50, plainP99 time.Duration
}

// lockUnlockLatencies returns, over every acquisition of p but its last,
// the latency of Lock (its wait), of Unlock (from calling it to calling the
// next Lock, which the loop does at once) and their sum.
func lockUnlockLatencies(p procResult) (lock, unlock, cycle []time.Duration) {
	for k := 0; k+1 < len(p.At) && k+1 < len(p.Waits) && k < len(p.Released); k++ {
		next := p.At[k+1] - p.Waits[k+1] // when the next Lock was called
		u := next - p.Released[k]
		lock, unlock, cycle = append(lock, p.Waits[k]), append(unlock, u), append(cycle, p.Waits[k]+u)
	}
	return lock, unlock, cycle
}

// summarizeService computes serviceStats.
func summarizeService(r peerRun) serviceStats {
	s := serviceStats{peerStats: summarizePeers(r)}
	var lock, unlock, cycle, plain []time.Duration
	for _, p := range r.procs {
		l, u, c := lockUnlockLatencies(p)
		lock, unlock, cycle = append(lock, l...), append(unlock, u...), append(cycle, c...)
		plain = append(plain, p.Plain...)
	}
	for _, xs := range [][]time.Duration{lock, unlock, cycle, plain} {
		slices.Sort(xs)
	}
	s.lockP50, s.lockP99 = percentile(lock, 50), percentile(lock, 99)
	s.unlockP50, s.unlockP99 = percentile(unlock, 50), percentile(unlock, 99)
	s.cycleP50, s.cycleP99 = percentile(cycle, 50), percentile(cycle, 99)
	s.plainP50, s.plainP99 = percentile(plain, 50), percentile(plain, 99)
	return s
}

// msec formats d in milliseconds to the hundredth: a loopback round trip
// is a fraction of one.
func msec(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)) }

// printService prints the table of runs, then a verdict per target.
func printService(w io.Writer, runs []peerRun) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "clients\talgorithm\tLock p50\tp99\tUnlock p50\tp99\tLock+Unlock p50\tp99\tthroughput\thandoff p50\tp99\tplain p50\tp99\tacquisitions\tdouble grants\t")
	stats := map[int]map[algorithm]serviceStats{}
	for _, r := range runs {
		s := summarizeService(r)
		if stats[r.contenders] == nil {
			stats[r.contenders] = map[algorithm]serviceStats{}
		}
		stats[r.contenders][r.algorithm] = s
		plain := func(d time.Duration) string {
			if s.plainP50 == 0 {
				return "–"
			}
			return msec(d)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f/s\t%s\t%s\t%s\t%s\t%d\t%d\t\n", r.contenders, r.algorithm,
			msec(s.lockP50), msec(s.lockP99), msec(s.unlockP50), msec(s.unlockP99), msec(s.cycleP50), msec(s.cycleP99),
			s.throughput, msec(s.handoffP50), msec(s.handoffP99), plain(s.plainP50), plain(s.plainP99), s.acquisitions, s.overlaps)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nTimes in ms. Lock, Unlock: the call's latency; Lock+Unlock: both (the hold excluded), over every")
	fmt.Fprintln(w, "acquisition but each client's last: uncontended with 1 client, including the queue's wait with more.")
	fmt.Fprintln(w, "handoff: from the holder calling Unlock to the next Lock returning. plain: a plain request to the")
	fmt.Fprintln(w, "service after the loop (lockd: KeepAlive; etcd: Get), one local round trip. double grants must be 0.")
	fmt.Fprintln(w)
	for _, line := range serviceVerdicts(stats) {
		fmt.Fprintln(w, line)
	}
}

// serviceVerdicts judges the targets from the stats by client count and
// algorithm: lockd adds at most one local round trip (lockd's plain p50) to
// each of the library's uncontended calls (p50, 1 client), and lockd's
// throughput beats the etcd lock service's at 5 clients and more.
func serviceVerdicts(stats map[int]map[algorithm]serviceStats) []string {
	var out []string
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "missed"
	}
	if one := stats[1]; one != nil {
		lib, okLib := one[algoNew]
		ld, okLd := one[algoLockd]
		if okLib && okLd && ld.plainP50 > 0 {
			rt := ld.plainP50
			addLock, addUnlock := ld.lockP50-lib.lockP50, ld.unlockP50-lib.unlockP50
			out = append(out, fmt.Sprintf("target 1, lockd adds at most one local round trip per call (p50, 1 client; round trip = lockd's plain p50 %s ms): "+
				"Lock +%s ms (%.1f round trips), %s; Unlock +%s ms (%.1f round trips), %s.",
				msec(rt), msec(addLock), float64(addLock)/float64(rt), verdict(addLock <= rt),
				msec(addUnlock), float64(addUnlock)/float64(rt), verdict(addUnlock <= rt)))
		}
	}
	counts := make([]int, 0, len(stats))
	for c := range stats {
		counts = append(counts, c)
	}
	slices.Sort(counts)
	for _, c := range counts {
		ld, okLd := stats[c][algoLockd]
		et, okEt := stats[c][algoEtcdLock]
		if c < 5 || !okLd || !okEt || et.throughput == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("target 2, lockd beats etcd's lock service on a hot lock (%d clients): %.0f/s against %.0f/s (×%.2f), %s; handoff p50 %s against %s ms.",
			c, ld.throughput, et.throughput, ld.throughput/et.throughput, verdict(ld.throughput > et.throughput), msec(ld.handoffP50), msec(et.handoffP50)))
	}
	return out
}

// loadAverage returns the first line of /proc/loadavg, or why not.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return strings.TrimSpace(string(b))
}

// runServiceCommand runs -scenario service on the real backend.
func runServiceCommand(o *options) error {
	if o.backend != "cassandra" {
		return fmt.Errorf("-scenario service needs -backend cassandra -hosts … (and an etcd for etcd-lock and etcd: scripts/etcd up)")
	}
	if o.duration <= 0 {
		return fmt.Errorf("-duration must be positive, got %v", o.duration)
	}
	if !o.given("processes") {
		o.procs = serviceCounts
	}
	counts, err := o.processCounts()
	if err != nil {
		return err
	}
	algos, version, cleanup, err := o.prepareRealRun(serviceAlgorithms, serviceAlgorithms)
	if err != nil {
		return err
	}
	defer cleanup()
	ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
	defer cancel()
	loadBefore := loadAverage()
	if slices.Contains(algos, algoLockd) {
		stop, err := o.startLockd(ctx)
		if err != nil {
			return err
		}
		defer stop()
	}
	started := time.Now()
	tag := runTag()
	var runs []peerRun
	for _, p := range counts {
		for _, a := range algos {
			id := fmt.Sprintf("service-%s-%s-%d", tag, a, p)
			jobs := make([]workerJob, p)
			for i := range jobs {
				jobs[i] = o.real.job(a, fmt.Sprintf("%s-%s%d-p%d", tag, a, p, i), id, 0, o.hold, o.poll)
			}
			procs, err := runWorkers(jobs, o.duration)
			if err != nil {
				return fmt.Errorf("%s with %d clients: %w", a, p, err)
			}
			runs = append(runs, peerRun{algorithm: a, contenders: p, duration: o.duration, procs: procs})
		}
	}
	fmt.Printf("lockbench -scenario service: one hot lock id, %v per run, hold %v, poll %v; Cassandra %s at %s (keyspace %s), etcd at %s,\n"+
		"lockd at %s (extra flags: %q); every client a separate OS process on this machine. Load average before: %s; after: %s.\n\n",
		o.duration, o.hold, o.poll, version, o.real.hosts, o.real.keyspace, o.real.etcd, o.real.lockdURL, o.real.lockdFlags, loadBefore, loadAverage())
	printService(os.Stdout, runs)
	fmt.Printf("\n(ran in %.1f s of real time)\n", time.Since(started).Seconds())
	return nil
}

// startLockd moves the bench keyspace to phase new, builds lockd and the
// lockd peer, starts lockd on loopback and sets o.real's lockdURL and
// lockdPeerExe. stop shuts lockd down and removes the builds.
func (o *options) startLockd(ctx context.Context) (stop func(), err error) {
	found, err := moveToNew(ctx, o.real)
	if err != nil {
		return nil, err
	}
	if found.Mode != lockstep.ModeNew || found.Pending() {
		fmt.Fprintf(os.Stderr, "lockbench: moved keyspace %s's fleet phase from %v to new (migration.Controller)\n", o.real.keyspace, found)
	}
	lockdDir, peerDir := o.real.lockdDir, o.real.lockdPeerDir
	if lockdDir == "" {
		if lockdDir, err = findModuleFrom("", lockdModule, lockdRepoDir, "lockd"); err != nil {
			return nil, err
		}
	}
	if peerDir == "" {
		if peerDir, err = findModuleFrom("", lockdPeerModule, lockdPeerRepoDir, "lockdpeer"); err != nil {
			return nil, err
		}
	}
	tmp, err := os.MkdirTemp("", "lockbench-lockd-")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (func(), error) { os.RemoveAll(tmp); return nil, err }
	exe, err := buildModule(lockdDir, "./cmd/lockd", tmp, "lockd")
	if err != nil {
		return fail(err)
	}
	if o.real.lockdPeerExe, err = buildModule(peerDir, ".", tmp, "lockdpeer"); err != nil {
		return fail(err)
	}
	srv, err := startLockd(exe, filepath.Join(tmp, "lockd.log"), o.real)
	if err != nil {
		return fail(err)
	}
	o.real.lockdURL = srv.url
	return func() {
		if err := srv.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "lockbench: lockd: %v\n", err)
		}
		os.RemoveAll(tmp)
	}, nil
}
