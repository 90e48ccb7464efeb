package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/lockstep-go/lockstep/cmd/lockbench/internal/peer"
)

// lockbench's side of this literal is cmd/lockbench/etcdpeer_test.go; keep
// them equal. The rest of the protocol is package peer's, tested there.
const wireJob = `{"algorithm":"etcd","process":"p1","hosts":["127.0.0.1"],"keyspace":"ks","etcd":["127.0.0.1:2379"],"lock_id":"id","k":0,"hold":1000000,"poll":10000000}`

func TestWireFormat_JobIsLockbenchs(t *testing.T) {
	var job workerJob
	if err := json.Unmarshal([]byte(wireJob), &job); err != nil {
		t.Fatal(err)
	}
	want := workerJob{Job: peer.Job{Algorithm: "etcd", Process: "p1", LockID: "id", Hold: time.Millisecond}, Etcd: []string{"127.0.0.1:2379"}}
	if !reflect.DeepEqual(job, want) {
		t.Errorf("job %+v, want %+v", job, want)
	}
}

func TestLockResponseKey_ReadsTheKeyPastTheHeader(t *testing.T) {
	b := protowire.AppendTag(nil, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, []byte{0x08, 0x01}) // a header: cluster_id 1
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendBytes(b, []byte("/lockbench/id/694d"))
	if key, err := lockResponseKey(b); err != nil || string(key) != "/lockbench/id/694d" {
		t.Fatalf("key %q, error %v", key, err)
	}
	if _, err := lockResponseKey(b[:len(b)-1]); err == nil {
		t.Error("a truncated response decoded without error")
	}
	if _, err := lockResponseKey(nil); err == nil {
		t.Error("a response without a key decoded without error")
	}
}

func TestRunWorker_RefusesAnAlgorithmNotEtcds(t *testing.T) {
	var out strings.Builder
	err := runWorker(`{"algorithm":"new","process":"p1","etcd":["127.0.0.1:1"],"lock_id":"id"}`, strings.NewReader(""), &out)
	if err == nil || !strings.Contains(out.String(), `not \"new\"`) {
		t.Fatalf("error %v, output %s; want a refusal naming the algorithm", err, out.String())
	}
}

func TestRunWorker_RefusesAJobWithoutEndpoints(t *testing.T) {
	var out strings.Builder
	err := runWorker(`{"algorithm":"etcd","process":"p1","lock_id":"id"}`, strings.NewReader(""), &out)
	if err == nil || !strings.Contains(out.String(), "names no etcd endpoint") {
		t.Fatalf("error %v, output %s; want the job refused", err, out.String())
	}
}
