package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The etcd peer (etcdpeer/) is a module of its own and cannot import this
// package, so the worker protocol's JSON is pinned here and in
// etcdpeer/worker_test.go to the same literals: a change on one side fails
// that side's test.
const (
	wireJob    = `{"algorithm":"etcd","process":"p1","hosts":["127.0.0.1"],"keyspace":"ks","etcd":["127.0.0.1:2379"],"lock_id":"id","k":0,"hold":1000000,"poll":10000000}`
	wireResult = `{"result":{"waits":[1],"at":[2],"released":[3],"end":4,"requests":{"acquire":5,"release":6,"background":7}}}`
	wireStart  = `{"start":1,"until":2}`
)

func TestWorkerProtocol_WireFormatIsTheEtcdPeers(t *testing.T) {
	job := workerJob{Algorithm: algoEtcd, Process: "p1", Hosts: []string{"127.0.0.1"}, Keyspace: "ks",
		Etcd: []string{"127.0.0.1:2379"}, LockID: "id", Hold: time.Millisecond, Poll: 10 * time.Millisecond, exe: "/x"}
	rep := workerReport{Result: &procResult{Waits: []time.Duration{1}, At: []time.Duration{2}, Released: []time.Duration{3},
		End: 4, Requests: requestCounts{Acquire: 5, Release: 6, Background: 7}}}
	for _, c := range []struct {
		v    any
		want string
	}{{job, wireJob}, {workerStart{Start: 1, Until: 2}, wireStart}} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Errorf("%T encodes as %s (%v), want %s", c.v, b, err, c.want)
		}
	}
	var got workerReport
	if err := json.Unmarshal([]byte(wireResult), &got); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(got); string(b) != wireResult {
		t.Errorf("the peer's result decodes to %s, want %s", b, wireResult)
	}
	if b, _ := json.Marshal(rep); string(b) != wireResult {
		t.Errorf("result encodes as %s, want %s", b, wireResult)
	}
}

func TestRealOptionsJob_OnlyEtcdRunsInThePeer(t *testing.T) {
	o := realOptions{hosts: "127.0.0.1", etcd: "127.0.0.1:2379", etcdPeerExe: "/tmp/etcdpeer"}
	for _, a := range realAlgorithms {
		want := ""
		if a == algoEtcd || a == algoEtcdNextRev {
			want = o.etcdPeerExe
		}
		if j := o.job(a, "p", "id", 1, 0, time.Millisecond); j.exe != want {
			t.Errorf("%s job runs in %q, want %q", a, j.exe, want)
		}
	}
	for _, a := range []algorithm{algoEtcd, algoEtcdNextRev} {
		if _, err := newRealContender(workerJob{Algorithm: a}); err == nil {
			t.Errorf("lockbench built a %s contender itself", a)
		}
	}
}

func TestFindEtcdPeer_FindsTheNestedModuleFromLockbenchAndFromTheRoot(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	// "": this package's directory, in lockbench's module (go run .);
	// ../..: the library's module at the repository root.
	for _, wd := range []string{"", filepath.Join("..", "..")} {
		dir, err := findEtcdPeerFrom(wd)
		if err != nil {
			t.Fatalf("from %q: %v", wd, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "module github.com/lockstep-go/lockstep/cmd/lockbench/etcdpeer\n") {
			t.Errorf("from %q: %s/go.mod is not the etcd peer's:\n%s", wd, dir, b)
		}
	}
}

func TestFindEtcdPeer_OutsideTheRepositorySaysWhatToDo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	_, err := findEtcdPeerFrom(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "-etcdpeer DIR") {
		t.Errorf("outside the repository: %v, want an error naming -etcdpeer DIR", err)
	}
}
