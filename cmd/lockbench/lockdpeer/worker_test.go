package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/cmd/lockbench/peer"
	"github.com/lockstep-go/lockstep/lockd"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

// lockbench's side of this literal is cmd/lockbench/service_test.go; keep
// them equal.
const wireJob = `{"algorithm":"lockd","process":"p1","hosts":["127.0.0.1"],"keyspace":"ks","lockd":"http://127.0.0.1:7420","lock_id":"id","k":0,"hold":1000000,"poll":10000000}`

func TestWireFormat_IsLockbenchs(t *testing.T) {
	var job workerJob
	if err := json.Unmarshal([]byte(wireJob), &job); err != nil {
		t.Fatal(err)
	}
	want := workerJob{Job: peer.Job{Algorithm: "lockd", Process: "p1", LockID: "id", Hold: time.Millisecond}, Lockd: "http://127.0.0.1:7420"}
	if !reflect.DeepEqual(job, want) {
		t.Errorf("job %+v, want %+v", job, want)
	}
	rep := peer.Report{Result: &peer.Result{Plain: []time.Duration{8}}}
	if b, err := json.Marshal(rep); err != nil || !strings.Contains(string(b), `"plain":[8]`) {
		t.Errorf("result encodes as %s (%v), want a plain field", b, err)
	}
}

// newLockd serves a lockd on the embedded model (a fresh store, in phase
// legacy, as lockd's own example) and returns its URL.
func newLockd(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	locker, err := migration.New(model.New(&clock.Local{}), migration.Static(lockstep.ModeLegacy), &migration.Options{Separator: "/"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { locker.Close(ctx) })
	srv, err := lockd.New(locker, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(ctx) })
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}

func TestRunWorker_ThroughALockdReportsReadyThenKAcquisitionsAndPlainRequests(t *testing.T) {
	job := fmt.Sprintf(`{"process":"p1","lockd":%q,"lock_id":"hot","k":3}`, newLockd(t))
	var out strings.Builder
	in := strings.NewReader(fmt.Sprintf(`{"start":%d}`+"\n", time.Now().UnixMicro()))
	if err := runWorker(job, in, &out); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	var lines []peer.Report
	for sc.Scan() {
		var rep peer.Report
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
	if r.Requests.Acquire != 3 || r.Requests.Release != 3 {
		t.Errorf("requests %+v, want 3 Lock and 3 Unlock RPCs (the warm-up's in a tally of its own)", r.Requests)
	}
	if len(r.Plain) != peer.PlainRequests {
		t.Errorf("%d plain requests timed, want %d", len(r.Plain), peer.PlainRequests)
	}
}

func TestRunWorker_RefusesAJobWithoutALockdURL(t *testing.T) {
	var out strings.Builder
	err := runWorker(`{"process":"p1","lock_id":"hot"}`, strings.NewReader(""), &out)
	if err == nil || !strings.Contains(out.String(), "no lockd URL") {
		t.Fatalf("error %v, output %s; want a refusal naming the missing URL", err, out.String())
	}
}

func TestLock_AfterTheRunsEndWrapsTheContextsError(t *testing.T) {
	l, err := newLockdLocker(newLockd(t), "p1")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(context.Background())
	ctx, cancel := context.WithCancel(peer.WithTally(context.Background(), &peer.Tally{}))
	cancel()
	if _, err := l.Lock(ctx, "hot"); err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
		t.Fatalf("Lock after cancel: %v, want context.Canceled", err)
	}
	if _, err := peer.Contend(ctx, l, &peer.WallClock{}, time.Now().UnixMicro(), peer.LoopConfig{ID: "hot"}); err != nil {
		t.Fatalf("the loop ended with %v, want no error when the run's time is up", err)
	}
}
