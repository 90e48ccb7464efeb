package main

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/lockstep-go/lockstep/cmd/lockbench/peer"
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

func TestCtxErrAfter_TakesTheServersDeadlineForTheCallersWhenItIsNear(t *testing.T) {
	serverSays := errors.New("rpc error: code = Unknown desc = context deadline exceeded")
	near, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := ctxErrAfter(near, serverSays); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the server's deadline error 50 ms before the caller's: %v, want the caller's deadline", err)
	}
	far, cancelFar := context.WithTimeout(context.Background(), time.Hour)
	defer cancelFar()
	if err := ctxErrAfter(far, serverSays); err != nil {
		t.Errorf("a deadline error an hour before the caller's deadline: %v, want nil (not the caller's)", err)
	}
	near2, cancel2 := context.WithTimeout(context.Background(), time.Hour)
	defer cancel2()
	if err := ctxErrAfter(near2, errors.New("etcdserver: request timed out")); err != nil {
		t.Errorf("another error: %v, want nil", err)
	}
}
