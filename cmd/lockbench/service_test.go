package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/migration"
)

// lockdWireJob is the lockd peer's literal (lockdpeer/worker_test.go's
// wireJob); keep them equal.
const lockdWireJob = `{"algorithm":"lockd","process":"p1","hosts":["127.0.0.1"],"keyspace":"ks","lockd":"http://127.0.0.1:7420","lock_id":"id","k":0,"hold":1000000,"poll":10000000}`

func TestWorkerProtocol_WireFormatIsTheLockdPeers(t *testing.T) {
	o := realOptions{hosts: "127.0.0.1", keyspace: "ks", lockdURL: "http://127.0.0.1:7420", lockdPeerExe: "/tmp/lockdpeer"}
	job := o.job(algoLockd, "p1", "id", 0, time.Millisecond, 10*time.Millisecond)
	if b, err := json.Marshal(job); err != nil || string(b) != lockdWireJob {
		t.Errorf("job encodes as %s (%v), want %s", b, err, lockdWireJob)
	}
	if job.exe != o.lockdPeerExe {
		t.Errorf("the lockd job runs in %q, want the lockd peer", job.exe)
	}
	var rep workerReport
	if err := json.Unmarshal([]byte(`{"result":{"waits":[],"at":[],"released":[],"end":0,"requests":{},"plain":[8]}}`), &rep); err != nil || len(rep.Result.Plain) != 1 {
		t.Errorf("plain decodes to %+v (%v)", rep.Result, err)
	}
}

func TestRealOptionsJob_ServiceAlgorithmsRunInTheirPeers(t *testing.T) {
	o := realOptions{etcdPeerExe: "/tmp/etcdpeer", lockdPeerExe: "/tmp/lockdpeer"}
	want := map[algorithm]string{algoNew: "", algoLockd: o.lockdPeerExe, algoEtcdLock: o.etcdPeerExe, algoEtcd: o.etcdPeerExe, algoEtcdNextRev: o.etcdPeerExe}
	for _, a := range serviceAlgorithms {
		if j := o.job(a, "p", "id", 1, 0, time.Millisecond); j.exe != want[a] {
			t.Errorf("%s job runs in %q, want %q", a, j.exe, want[a])
		}
	}
	for _, a := range []algorithm{algoLockd, algoEtcdLock} {
		if _, err := newRealContender(workerJob{Algorithm: a}); err == nil {
			t.Errorf("lockbench built a %s contender itself", a)
		}
	}
}

func TestLockUnlockLatencies_SplitEachCycleIntoLockAndUnlock(t *testing.T) {
	ms := time.Millisecond
	// Lock called at 0, returns at 2; held to 3; Unlock returns (next Lock
	// called) at 4, which returns at 7; held to 8; Unlock; …
	p := procResult{Waits: []time.Duration{2 * ms, 3 * ms, 1 * ms}, At: []time.Duration{2 * ms, 7 * ms, 11 * ms}, Released: []time.Duration{3 * ms, 8 * ms, 12 * ms}}
	lock, unlock, cycle := lockUnlockLatencies(p)
	want := func(name string, got []time.Duration, w ...time.Duration) {
		t.Helper()
		if len(got) != len(w) {
			t.Fatalf("%s %v, want %v", name, got, w)
		}
		for i := range w {
			if got[i] != w[i] {
				t.Errorf("%s %v, want %v", name, got, w)
			}
		}
	}
	want("lock", lock, 2*ms, 3*ms)
	want("unlock", unlock, 1*ms, 2*ms)
	want("cycle", cycle, 3*ms, 5*ms)
	if l, u, c := lockUnlockLatencies(procResult{Waits: []time.Duration{ms}, At: []time.Duration{ms}, Released: []time.Duration{ms}}); l != nil || u != nil || c != nil {
		t.Errorf("one acquisition gives %v %v %v, want nothing (its Unlock's end is not known)", l, u, c)
	}
}

func TestServiceVerdicts_JudgeBothTargets(t *testing.T) {
	ms := time.Millisecond
	st := func(lock, unlock, plain time.Duration, tput float64) serviceStats {
		s := serviceStats{lockP50: lock, unlockP50: unlock, plainP50: plain}
		s.throughput = tput
		return s
	}
	stats := map[int]map[algorithm]serviceStats{
		1:  {algoNew: st(2*ms, 1*ms, 0, 0), algoLockd: st(2*ms+ms/2, 3*ms, ms, 0)},
		5:  {algoLockd: st(0, 0, ms, 200), algoEtcdLock: st(0, 0, ms, 100)},
		20: {algoLockd: st(0, 0, ms, 50), algoEtcdLock: st(0, 0, ms, 100)},
	}
	got := strings.Join(serviceVerdicts(stats), "\n")
	for _, w := range []string{"Lock +0.50 ms (0.5 round trips), met", "Unlock +2.00 ms (2.0 round trips), missed",
		"(5 clients): 200/s against 100/s (×2.00), met", "(20 clients): 50/s against 100/s (×0.50), missed"} {
		if !strings.Contains(got, w) {
			t.Errorf("verdicts lack %q:\n%s", w, got)
		}
	}
}

func TestLockdURLOf_ReadsLockdsFirstLineOrQuotesIt(t *testing.T) {
	url, err := lockdURLOf("lockd: serving lockstep.v1 on http://127.0.0.1:7420 (store: cassandra 127.0.0.1 keyspace k; open mode)")
	if err != nil || url != "http://127.0.0.1:7420" {
		t.Errorf("url %q, error %v", url, err)
	}
	if _, err := lockdURLOf("lockd: something else"); err == nil || !strings.Contains(err.Error(), "something else") {
		t.Errorf("error %v, want one quoting the line", err)
	}
}

func TestNextTowardNew_StepsThroughCombinedAndFinishesAPendingMove(t *testing.T) {
	for _, c := range []struct {
		p    migration.Phase
		want lockstep.Mode
	}{
		{migration.Phase{Mode: lockstep.ModeLegacy}, lockstep.ModeCombined},
		{migration.Phase{Mode: lockstep.ModeCombined}, lockstep.ModeNew},
		{migration.Phase{Mode: lockstep.ModeCombined, Target: lockstep.ModeLegacy}, lockstep.ModeLegacy},
		{migration.Phase{Mode: lockstep.ModeCombined, Target: lockstep.ModeNew}, lockstep.ModeNew},
	} {
		if got := nextTowardNew(c.p); got != c.want {
			t.Errorf("from %v: %v, want %v", c.p, got, c.want)
		}
	}
}

func TestFindModuleFrom_FindsLockdAndItsPeerFromLockbenchAndFromTheRoot(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	for _, wd := range []string{"", filepath.Join("..", "..")} {
		for _, m := range []struct{ module, dir string }{{lockdModule, lockdRepoDir}, {lockdPeerModule, lockdPeerRepoDir}} {
			dir, err := findModuleFrom(wd, m.module, m.dir, "x")
			if err != nil || !isModule(dir, m.module) {
				t.Errorf("from %q, %s: %q, %v", wd, m.module, dir, err)
			}
		}
	}
	if _, err := findModuleFrom(t.TempDir(), lockdModule, lockdRepoDir, "lockd"); err == nil || !strings.Contains(err.Error(), "-lockd DIR") {
		t.Errorf("outside the repository: %v, want a hint naming -lockd", err)
	}
}

func TestRunServiceCommand_RefusesTheSimBackendAndOtherAlgorithms(t *testing.T) {
	if err := run1([]string{"-scenario", "service"}); err == nil || !strings.Contains(err.Error(), "-backend cassandra") {
		t.Errorf("on sim: %v, want a refusal naming -backend cassandra", err)
	}
	if err := run1([]string{"-scenario", "service", "-backend", "cassandra", "-hosts", "127.0.0.1", "-algorithms", "lwt"}); err == nil || !strings.Contains(err.Error(), `"lwt" is not available`) {
		t.Errorf("-algorithms lwt: %v, want a refusal", err)
	}
}

func TestRunServiceCommand_RunsWithoutCassandraOnlyForTheEtcdPeersAlgorithms(t *testing.T) {
	for _, list := range []string{"new", "etcd,lockd", "etcd-nextrev,new", "etcd,lwt"} {
		if err := run1([]string{"-scenario", "service", "-algorithms", list}); err == nil || !strings.Contains(err.Error(), "-backend cassandra") {
			t.Errorf("-algorithms %s on sim: %v, want a refusal naming -backend cassandra", list, err)
		}
	}
	for _, list := range []string{"etcd", "etcd-lock,etcd,etcd-nextrev"} {
		if !etcdOnly(list) {
			t.Errorf("etcdOnly(%q) is false, want true", list)
		}
	}
	if etcdOnly("") {
		t.Error("etcdOnly of the default list is true, want false (the default runs new and lockd)")
	}
}
