package main

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep/clock"
)

// prepareTimeout bounds creating the schema.
const prepareTimeout = 2 * time.Minute

// runRealSeed runs the seed experiment on a real cluster: for every
// algorithm and process count, that many worker processes take one lock id
// (fresh per run, so no run steps over an earlier one's tombstones) K times
// each, starting together. It returns the runs and the Cassandra version.
func runRealSeed(o realOptions, cfg seedConfig) ([]run, string, error) {
	o, cleanup, err := o.withEtcdPeer(cfg.algorithms)
	if err != nil {
		return nil, "", err
	}
	defer cleanup()
	ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
	defer cancel()
	version, err := prepareCassandra(ctx, o)
	if err != nil {
		return nil, "", err
	}
	tag := runTag()
	var out []run
	for _, a := range cfg.algorithms {
		for _, p := range cfg.processes {
			id := fmt.Sprintf("seed-%s-%s-%d", tag, a, p)
			jobs := make([]workerJob, p)
			for i := range jobs {
				jobs[i] = o.job(a, fmt.Sprintf("%s-%s%d-p%d", tag, a, p, i), id, cfg.k, cfg.hold, cfg.poll)
				jobs[i].Fencing = cfg.fencing
			}
			procs, err := runWorkers(jobs, 0)
			if err != nil {
				return nil, version, fmt.Errorf("%s with %d processes: %w", a, p, err)
			}
			r := run{algorithm: a, processes: p, procs: procs}
			for _, pr := range procs {
				r.elapsed = max(r.elapsed, pr.End)
			}
			out = append(out, r)
			if cfg.cellDone != nil {
				cfg.cellDone(r)
			}
		}
	}
	return out, version, nil
}

// job returns a worker job on o's backend, run by the etcd peer for etcd.
func (o realOptions) job(a algorithm, process, id string, k int, hold, poll time.Duration) workerJob {
	j := workerJob{Algorithm: a, Process: process, Hosts: splitList(o.hosts), Keyspace: o.keyspace,
		Etcd: splitList(o.etcd), LockID: id, K: k, Hold: hold, Poll: poll}
	switch {
	case inEtcdPeer(a):
		j.exe = o.etcdPeerExe
	case a == algoLockd:
		j.exe, j.Lockd = o.lockdPeerExe, o.lockdURL
	}
	return j
}

// runRealRoundtrips measures the uncontended round trips of every mode on a
// real cluster, in this process, on a lock id fresh to the run.
func runRealRoundtrips(o realOptions, algos []algorithm) ([]roundtripResult, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
	defer cancel()
	version, err := prepareCassandra(ctx, o)
	if err != nil {
		return nil, "", err
	}
	s, err := connect(splitList(o.hosts))
	if err != nil {
		return nil, version, err
	}
	defer s.Close()
	store, err := newCassandraStore(s, o.keyspace)
	if err != nil {
		return nil, version, err
	}
	tag := runTag()
	var out []roundtripResult
	for _, a := range algos {
		p := lockerParams{store: store, clock: &clock.Local{}, process: fmt.Sprintf("%s-rt-%s", tag, a), poll: 10 * time.Millisecond}
		r, err := measureRoundtrips(context.Background(), a, p, fmt.Sprintf("rt-%s-%s", tag, a), roundtripSamples, func() {})
		if err != nil {
			return nil, version, err
		}
		out = append(out, r)
	}
	return out, version, nil
}
