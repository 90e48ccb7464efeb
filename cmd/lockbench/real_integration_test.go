//go:build integration

package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// The real-backend test runs a small seed experiment with worker processes
// against the Cassandra cluster in LOCKBENCH_CASSANDRA_HOSTS (and etcd in
// LOCKBENCH_ETCD, if set), for example:
//
//	LOCKSTEP_CASSANDRA_IP_OFFSET=10 LOCKSTEP_CASSANDRA_DIR=/tmp/lockstep-bench-cassandra scripts/cassandra up
//	scripts/etcd up
//	cd cmd/lockbench # a module of its own
//	LOCKBENCH_CASSANDRA_HOSTS=127.0.0.11 LOCKBENCH_ETCD=127.0.0.1:2379 go test -tags integration .
//
// With the integration tag and no LOCKBENCH_CASSANDRA_HOSTS it fails rather
// than skips.

func TestRealSeed_EveryWorkerReportsEveryAcquisitionWithoutDoubleGrants(t *testing.T) {
	hosts := os.Getenv("LOCKBENCH_CASSANDRA_HOSTS")
	if strings.TrimSpace(hosts) == "" {
		t.Fatal("LOCKBENCH_CASSANDRA_HOSTS is empty: the integration tag needs a running Cassandra")
	}
	o := realOptions{hosts: hosts, keyspace: "lockbench_test", replication: 1, etcd: os.Getenv("LOCKBENCH_ETCD")}
	algos := []algorithm{algoNew, algoLegacy, algoCombined, algoLWT}
	if o.etcd != "" {
		algos = append(algos, algoEtcd)
	}
	cfg := seedConfig{processes: []int{1, 3}, k: 10, hold: time.Millisecond, poll: 10 * time.Millisecond, algorithms: algos}
	runs, version, err := runRealSeed(o, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if version == "" {
		t.Error("no Cassandra version")
	}
	if len(runs) != len(algos)*len(cfg.processes) {
		t.Fatalf("%d runs, want %d", len(runs), len(algos)*len(cfg.processes))
	}
	for _, r := range runs {
		for i, p := range r.procs {
			if len(p.Waits) != cfg.k || p.Requests.Acquire < int64(cfg.k) {
				t.Errorf("%s/%d: process %d made %d acquisitions with %d requests", r.algorithm, r.processes, i, len(p.Waits), p.Requests.Acquire)
			}
		}
		// The processes share the machine's clock: no acquisition may
		// return before the previous holder began to release.
		if s := summarizePeers(peerRun{algorithm: r.algorithm, contenders: r.processes, procs: r.procs}); s.overlaps != 0 {
			t.Errorf("%s/%d: %d double grants", r.algorithm, r.processes, s.overlaps)
		}
	}
}
