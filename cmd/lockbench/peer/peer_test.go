package peer

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
)

// lockbench's side of these literals is cmd/lockbench/etcdpeer_test.go; keep
// them equal.
const (
	wireJob    = `{"algorithm":"etcd","process":"p1","hosts":["127.0.0.1"],"keyspace":"ks","etcd":["127.0.0.1:2379"],"lock_id":"id","k":0,"hold":1000000,"poll":10000000}`
	wireResult = `{"result":{"waits":[1],"at":[2],"released":[3],"end":4,"requests":{"acquire":5,"release":6,"background":7}}}`
	wireStart  = `{"start":1,"until":2}`
)

func TestWireFormat_IsLockbenchs(t *testing.T) {
	var job Job
	if err := json.Unmarshal([]byte(wireJob), &job); err != nil {
		t.Fatal(err)
	}
	want := Job{Algorithm: "etcd", Process: "p1", LockID: "id", Hold: time.Millisecond}
	if !reflect.DeepEqual(job, want) {
		t.Errorf("job %+v, want %+v", job, want)
	}
	var st Start
	if err := json.Unmarshal([]byte(wireStart), &st); err != nil || st != (Start{Start: 1, Until: 2}) {
		t.Errorf("start %+v (%v)", st, err)
	}
	rep := Report{Result: &Result{Waits: []time.Duration{1}, At: []time.Duration{2}, Released: []time.Duration{3},
		End: 4, Requests: RequestCounts{Acquire: 5, Release: 6, Background: 7}}}
	if b, err := json.Marshal(rep); err != nil || string(b) != wireResult {
		t.Errorf("result encodes as %s (%v), want %s", b, err, wireResult)
	}
}

// fakeLocker is an in-process mutex that counts one request per Lock and per
// Unlock into the tally of the call's ctx, and makes plain requests.
type fakeLocker struct {
	mu     sync.Mutex
	plains int
}

func (f *fakeLocker) Lock(ctx context.Context, id string) (Unlocker, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("fake lock %q: %w", id, err)
	}
	TallyOf(ctx).Add(1)
	f.mu.Lock()
	return f, nil
}

func (f *fakeLocker) Unlock(ctx context.Context) error {
	TallyOf(ctx).Add(1)
	f.mu.Unlock()
	return nil
}

func (f *fakeLocker) Plain(context.Context) error { f.plains++; return nil }

func (f *fakeLocker) Close(context.Context) error { return nil }

func TestServe_ReportsReadyThenKAcquisitionsNotCountingTheWarmUp(t *testing.T) {
	job := Job{Process: "p1", LockID: "id", K: 3}
	var out strings.Builder
	in := strings.NewReader(fmt.Sprintf(`{"start":%d}`+"\n", time.Now().UnixMicro()))
	f := &fakeLocker{}
	if err := Serve(f, job, in, json.NewEncoder(&out)); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	var lines []Report
	for sc.Scan() {
		var rep Report
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
	if r.Requests != (RequestCounts{Acquire: 3, Release: 3}) {
		t.Errorf("requests %+v, want 3 acquire and 3 release (the warm-up's in a tally of its own)", r.Requests)
	}
	if len(r.Plain) != PlainRequests || f.plains != PlainRequests {
		t.Errorf("%d plain latencies reported, %d made; want %d", len(r.Plain), f.plains, PlainRequests)
	}
	for i := range r.At {
		if r.Released[i] < r.At[i] || (i > 0 && r.At[i] < r.Released[i-1]) {
			t.Errorf("acquisition %d at %v released %v overlaps its neighbours %v", i, r.At[i], r.Released[i], r)
		}
	}
}

func TestServe_ReportsABadStartLine(t *testing.T) {
	var out strings.Builder
	err := Serve(&fakeLocker{}, Job{Process: "p1", LockID: "id", K: 1}, strings.NewReader("not json\n"), json.NewEncoder(&out))
	if err == nil || !strings.Contains(out.String(), "reading the start line") {
		t.Fatalf("error %v, output %s; want the start line refused", err, out.String())
	}
}

func TestContend_EndsWithoutErrorWhenTheRunsTimeIsUp(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Contend(ctx, &fakeLocker{}, &WallClock{}, time.Now().UnixMicro(), LoopConfig{ID: "id"})
	if err != nil || len(r.Waits) != 0 {
		t.Fatalf("result %+v, error %v; want none and no error", r, err)
	}
}
