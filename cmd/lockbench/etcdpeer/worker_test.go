package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// lockbench's side of these literals is cmd/lockbench/etcdpeer_test.go; keep
// them equal.
const (
	wireJob    = `{"algorithm":"etcd","process":"p1","hosts":["127.0.0.1"],"keyspace":"ks","etcd":["127.0.0.1:2379"],"lock_id":"id","k":0,"hold":1000000,"poll":10000000}`
	wireResult = `{"result":{"waits":[1],"at":[2],"released":[3],"end":4,"requests":{"acquire":5,"release":6,"background":7}}}`
	wireStart  = `{"start":1,"until":2}`
)

func TestWireFormat_IsLockbenchs(t *testing.T) {
	var job workerJob
	if err := json.Unmarshal([]byte(wireJob), &job); err != nil {
		t.Fatal(err)
	}
	want := workerJob{Algorithm: "etcd", Process: "p1", Etcd: []string{"127.0.0.1:2379"}, LockID: "id", Hold: time.Millisecond}
	if !reflect.DeepEqual(job, want) {
		t.Errorf("job %+v, want %+v", job, want)
	}
	var st workerStart
	if err := json.Unmarshal([]byte(wireStart), &st); err != nil || st != (workerStart{Start: 1, Until: 2}) {
		t.Errorf("start %+v (%v)", st, err)
	}
	rep := workerReport{Result: &procResult{Waits: []time.Duration{1}, At: []time.Duration{2}, Released: []time.Duration{3},
		End: 4, Requests: requestCounts{Acquire: 5, Release: 6, Background: 7}}}
	if b, err := json.Marshal(rep); err != nil || string(b) != wireResult {
		t.Errorf("result encodes as %s (%v), want %s", b, err, wireResult)
	}
}

// fakeLocker is an in-process mutex that counts one request per Lock and per
// Unlock into the tally of the call's ctx.
type fakeLocker struct{ mu sync.Mutex }

func (f *fakeLocker) Lock(ctx context.Context, id string) (unlocker, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("fake lock %q: %w", id, err)
	}
	tallyOf(ctx).n.Add(1)
	f.mu.Lock()
	return f, nil
}

func (f *fakeLocker) Unlock(ctx context.Context) error {
	tallyOf(ctx).n.Add(1)
	f.mu.Unlock()
	return nil
}

func (f *fakeLocker) Close(context.Context) error { return nil }

func TestServe_ReportsReadyThenKAcquisitionsNotCountingTheWarmUp(t *testing.T) {
	job := workerJob{Process: "p1", LockID: "id", K: 3}
	var out strings.Builder
	in := strings.NewReader(fmt.Sprintf(`{"start":%d}`+"\n", time.Now().UnixMicro()))
	if err := serve(&fakeLocker{}, job, in, json.NewEncoder(&out)); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	var lines []workerReport
	for sc.Scan() {
		var rep workerReport
		if err := json.Unmarshal(sc.Bytes(), &rep); err != nil {
			t.Fatalf("bad line %q: %v", sc.Text(), err)
		}
		lines = append(lines, rep)
	}
	if len(lines) != 2 || !lines[0].Ready || lines[1].Result == nil {
		t.Fatalf("reports %s, want ready then a result", out.String())
	}
	r := lines[1].Result
	if len(r.Waits) != 3 || len(r.At) != 3 || len(r.Released) != 3 {
		t.Fatalf("result %+v, want 3 acquisitions", r)
	}
	if r.Requests != (requestCounts{Acquire: 3, Release: 3}) {
		t.Errorf("requests %+v, want 3 acquire and 3 release (the warm-up's in a tally of its own)", r.Requests)
	}
	for i := range r.At {
		if r.Released[i] < r.At[i] || (i > 0 && r.At[i] < r.Released[i-1]) {
			t.Errorf("acquisition %d at %v released %v overlaps its neighbours %v", i, r.At[i], r.Released[i], r)
		}
	}
}

func TestContend_EndsWithoutErrorWhenTheRunsTimeIsUp(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := contend(ctx, &fakeLocker{}, &wallClock{}, time.Now().UnixMicro(), loopConfig{id: "id"})
	if err != nil || len(r.Waits) != 0 {
		t.Fatalf("result %+v, error %v; want none and no error", r, err)
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
