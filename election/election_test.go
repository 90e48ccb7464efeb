package election

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// fencedLocker returns a fenced queue Locker of process name on store, on
// the real clock (a synctest bubble makes it virtual).
func fencedLocker(t *testing.T, store lockstep.Store, name string) *queuelock.Locker {
	t.Helper()
	clk := &clock.Local{}
	g, err := clock.NewGlobal(store, "", clk)
	if err != nil {
		t.Fatal(err)
	}
	lk, err := queuelock.New(store, &queuelock.Options{ProcessID: name, Clock: clk, Fencing: g, TTL: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lk.Close(context.Background()) })
	return lk
}

func newElection(t *testing.T, lk lockstep.Locker, store lockstep.Store) *Election {
	t.Helper()
	e, err := New(lk, store, "E", &Options{TTL: 3 * time.Second, Poll: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestNew_RefusesBadInputWithAFix(t *testing.T) {
	store := model.New(&clock.Local{})
	cases := map[string]struct {
		store lockstep.Store
		id    string
		opts  *Options
		want  error
		says  string
	}{
		"nil store":      {nil, "E", nil, lockstep.ErrInvalidConfig, "pass the store"},
		"empty id":       {store, "", nil, lockstep.ErrInvalidID, "empty"},
		"bad table":      {store, "E", &Options{Table: "Leaders"}, lockstep.ErrInvalidConfig, "safe identifier"},
		"fractional TTL": {store, "E", &Options{TTL: 1500 * time.Millisecond}, lockstep.ErrInvalidConfig, "whole number of seconds"},
		"slow refresh":   {store, "E", &Options{TTL: 3 * time.Second, Refresh: 2 * time.Second}, lockstep.ErrInvalidConfig, "at most TTL/3"},
		"negative poll":  {store, "E", &Options{Poll: -time.Second}, lockstep.ErrInvalidConfig, "must be positive"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := New(nil, c.store, c.id, c.opts)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("New = %v, want an error wrapping %v that says %q", err, c.want, c.says)
			}
		})
	}
}

func TestCampaign_UnfencedLockerRefusedAndReleased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store := model.New(&clock.Local{})
		lk, err := queuelock.New(store, &queuelock.Options{ProcessID: "a"})
		if err != nil {
			t.Fatal(err)
		}
		defer lk.Close(ctx)
		_, err = newElection(t, lk, store).Campaign(ctx, "a")
		if !errors.Is(err, lockstep.ErrInvalidConfig) || !strings.Contains(err.Error(), "Fencing") {
			t.Fatalf("Campaign with an unfenced Locker = %v, want ErrInvalidConfig naming Fencing", err)
		}
		if _, err := lk.TryLock(ctx, "E"); err != nil {
			t.Fatalf("the lock was not released: %v", err)
		}
	})
}

func TestCampaign_ObserverOnlyCannotCampaign(t *testing.T) {
	e := newElection(t, nil, model.New(&clock.Local{}))
	if _, err := e.Campaign(context.Background(), "x"); !errors.Is(err, lockstep.ErrInvalidConfig) {
		t.Fatalf("Campaign without a Locker = %v, want ErrInvalidConfig", err)
	}
}

func TestCampaign_CancelledCandidateLeavesTheLeaderAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store := model.New(&clock.Local{})
		a := newElection(t, fencedLocker(t, store, "a"), store)
		b := newElection(t, fencedLocker(t, store, "b"), store)
		la, err := a.Campaign(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if _, err := b.Campaign(cctx, "b"); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("b's Campaign = %v, want its ctx's error", err)
		}
		if who, ok, err := b.Leader(ctx); err != nil || !ok || who.Value != "a" || who.Term != la.Term() {
			t.Fatalf("Leader = %+v, %v, %v; want a with term %d", who, ok, err, la.Term())
		}
		if err := la.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		if who, ok, err := b.Leader(ctx); err != nil || ok {
			t.Fatalf("after Resign Leader = %+v, %v, %v; want no leader", who, ok, err)
		}
		select {
		case <-la.Done():
		default:
			t.Fatal("Done open after Resign")
		}
	})
}

// The record outlives its own TTL while the leader's lease holds: the
// refresh rewrites it. Once the lease is lost, Done closes and the refresh
// stops, so the record expires.
func TestLeadership_RecordRefreshedWhileLeadingAndExpiresAfterLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store := model.New(&clock.Local{})
		gate := &failingPuts{Store: store}
		lk := fencedLocker(t, gate, "a")
		e := newElection(t, lk, gate)
		ld, err := e.Campaign(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Second) // more than three record TTLs
		if who, ok, _ := e.Leader(ctx); !ok || who.Value != "a" {
			t.Fatalf("record gone while leading: %+v %v", who, ok)
		}
		gate.fail.Store(true) // every write fails: the lease is lost
		time.Sleep(10 * time.Second)
		select {
		case <-ld.Done():
		default:
			t.Fatal("Done open although no renewal succeeded for 10s")
		}
		gate.fail.Store(false)
		time.Sleep(4 * time.Second)
		if who, ok, _ := e.Leader(ctx); ok {
			t.Fatalf("record of a lost leader still there: %+v", who)
		}
		if err := ld.Resign(ctx); !errors.Is(err, lockstep.ErrLost) {
			t.Fatalf("Resign after loss = %v, want ErrLost", err)
		}
	})
}

// A deposed leader's late record write cannot replace its successor's: the
// record's timestamp is the term.
func TestLeader_OldTermCannotReplaceNewerRecord(t *testing.T) {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	e := newElection(t, nil, store)
	if err := e.putRecord(ctx, 200, "new"); err != nil {
		t.Fatal(err)
	}
	if err := e.putRecord(ctx, 100, "old"); err != nil {
		t.Fatal(err)
	}
	if err := e.deleteRecord(ctx, 100); err != nil {
		t.Fatal(err)
	}
	if who, ok, err := e.Leader(ctx); err != nil || !ok || who != (Leader{Value: "new", Term: 200}) {
		t.Fatalf("Leader = %+v, %v, %v; want new, term 200", who, ok, err)
	}
}

// A record the package did not write is an error that says what to do, not
// a leader.
func TestLeader_ForeignRecordIsAnError(t *testing.T) {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	e := newElection(t, nil, store)
	_ = store.Put(ctx, queuelock.DefaultTable, e.row, lockstep.Cell{Column: recordColumn, Value: []byte("x"), Timestamp: 5, TTL: time.Minute})
	if _, ok, err := e.Leader(ctx); ok || err == nil || !strings.Contains(err.Error(), "Options.Table") {
		t.Fatalf("Leader over a foreign record = %v, %v; want an error naming Options.Table", ok, err)
	}
}

// Observe reports the current leader, then each change, never a term below
// one it reported (a replica behind, a deposed leader's record), and closes
// its channel when ctx ends.
func TestObserve_ReportsChangesNeverGoesBackAndCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		reads := &scriptedReads{cells: [][]lockstep.Cell{
			{{Column: recordColumn, Value: []byte("\x01b"), Timestamp: 200}},
			{{Column: recordColumn, Value: []byte("\x01old"), Timestamp: 100}},
			nil,
			{{Column: recordColumn, Value: []byte("\x01c"), Timestamp: 300}},
		}}
		e := newElection(t, nil, reads)
		ch := e.Observe(ctx)
		var got []Leader
		for range 3 {
			got = append(got, <-ch)
		}
		want := []Leader{{Value: "b", Term: 200}, {}, {Value: "c", Term: 300}}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("reports %+v, want %+v", got, want)
			}
		}
		cancel()
		for range ch {
		}
	})
}

// scriptedReads is a store whose reads return cells[0], cells[1], … and then
// the last one again.
type scriptedReads struct {
	lockstep.Store
	mu    sync.Mutex
	cells [][]lockstep.Cell
}

func (s *scriptedReads) Read(context.Context, string, string, lockstep.Slice) ([]lockstep.Cell, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cells[0]
	if len(s.cells) > 1 {
		s.cells = s.cells[1:]
	}
	return c, nil
}

// failingPuts is a store whose writes fail while fail is set.
type failingPuts struct {
	lockstep.Store
	fail atomic.Bool
}

var errPut = errors.New("put failed on purpose")

func (f *failingPuts) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	if f.fail.Load() {
		return errPut
	}
	return f.Store.Put(ctx, table, row, cells...)
}
