package queue

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model"
)

// countingStore counts the requests sent through it.
type countingStore struct {
	lockstep.Store
	n atomic.Int64 // renewals run on goroutines of their own
}

func (c *countingStore) Put(ctx context.Context, t, r string, cs ...lockstep.Cell) error {
	c.n.Add(1)
	return c.Store.Put(ctx, t, r, cs...)
}
func (c *countingStore) Delete(ctx context.Context, t, r string, ts int64, cols ...string) error {
	c.n.Add(1)
	return c.Store.Delete(ctx, t, r, ts, cols...)
}
func (c *countingStore) Read(ctx context.Context, t, r string, s lockstep.Slice) ([]lockstep.Cell, error) {
	c.n.Add(1)
	return c.Store.Read(ctx, t, r, s)
}

func isLost(l lockstep.Lock) bool {
	select {
	case <-l.Lost():
		return true
	default:
		return false
	}
}

// The handover: the receiver continues the lock under the same identity
// and token, the giver leaves, a third process stays out for longer than
// the TTL, and the receiver's Unlock releases it.
func TestQueueLock_AdoptContinuesTheLeaseAndKeepsAThirdOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		tokens, err := clock.NewGlobal(s, "", &clock.Local{})
		if err != nil {
			t.Fatal(err)
		}
		mk := func() *testLocker {
			l, err := New(s, &Options{TTL: ttl, Renew: time.Second, Poll: 10 * time.Millisecond, Fencing: tokens})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = l.Close(ctx) })
			return l
		}
		giver, receiver, third := mk(), mk(), mk()
		l, err := giver.Lock(ctx, "job/7")
		if err != nil {
			t.Fatal(err)
		}
		tok, err := giver.Share(l)
		if err != nil {
			t.Fatal(err)
		}
		l2, err := receiver.Adopt(ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		if l2.ID() != l.ID() || l2.Owner() != l.Owner() || l2.Mode() != lockstep.ModeNew {
			t.Fatalf("adopted %q owner %q mode %v; want %q owner %q", l2.ID(), l2.Owner(), l2.Mode(), l.ID(), l.Owner())
		}
		f1, ok1 := l.(lockstep.Fenced)
		f2, ok2 := l2.(lockstep.Fenced)
		if !ok1 || !ok2 || f1.Token() != f2.Token() {
			t.Fatalf("tokens: giver %v (%v), receiver %v (%v); want the same", f1, ok1, f2, ok2)
		}
		if err := l.Unlock(ctx); err != nil {
			t.Fatalf("giver's Unlock (leave) = %v", err)
		}
		for range 3 {
			if _, err := third.TryLock(ctx, "job/7"); !errors.Is(err, lockstep.ErrLocked) {
				t.Fatalf("third's TryLock during the receiver's hold = %v, want ErrLocked", err)
			}
			time.Sleep(ttl)
		}
		if isLost(l2) {
			t.Fatal("the receiver's lock is lost although it renews")
		}
		if err := l2.Unlock(ctx); err != nil {
			t.Fatalf("receiver's Unlock = %v", err)
		}
		if cs := cells(t, s, "job/7"); len(cs) != 0 {
			t.Fatalf("cells left after the last holder's Unlock: %v", cs)
		}
		l3, err := third.TryLock(ctx, "job/7")
		if err != nil {
			t.Fatalf("third's TryLock after the release = %v", err)
		}
		if f3 := l3.(lockstep.Fenced); f3.Token() <= f2.Token() {
			t.Fatalf("third's token %d is not above the shared one %d", f3.Token(), f2.Token())
		}
		_ = l3.Unlock(ctx)
	})
}

// The last to leave releases, whichever it is: here the receiver leaves
// first, the giver's lock still holds, and the giver's Unlock releases.
func TestQueueLock_SharedLockIsReleasedByTheLastToLeave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		giver, receiver, third := newLocker(t, s, nil), newLocker(t, s, nil), newLocker(t, s, nil)
		l, _ := giver.Lock(ctx, "a")
		tok, err := giver.Share(l)
		if err != nil {
			t.Fatal(err)
		}
		l2, err := receiver.Adopt(ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		if err := l2.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := third.TryLock(ctx, "a"); !errors.Is(err, lockstep.ErrLocked) {
			t.Fatalf("third's TryLock while the giver still holds = %v, want ErrLocked", err)
		}
		if err := l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if cs := cells(t, s, "a"); len(cs) != 0 {
			t.Fatalf("cells left after both left: %v", cs)
		}
	})
}

// A group (here hierarchical) is handed over whole: the adopted Lock has
// the same ID and Members.
func TestQueueLock_AdoptGroup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		mk := func() *testLocker {
			l, err := New(s, &Options{TTL: ttl, Renew: time.Second, Poll: 10 * time.Millisecond, Separator: "/"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = l.Close(ctx) })
			return l
		}
		giver, receiver, third := mk(), mk(), mk()
		g, err := giver.LockGroup(ctx, lockstep.Request{ID: "a/b"}, lockstep.Request{ID: "c", Access: lockstep.Shared})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := giver.Share(g)
		if err != nil {
			t.Fatal(err)
		}
		g2, err := receiver.Adopt(ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		m1, m2 := g.(lockstep.Grouped).Members(), g2.(lockstep.Grouped).Members()
		if g2.ID() != g.ID() || len(m1) != len(m2) || m1[0] != m2[0] || m1[len(m1)-1] != m2[len(m2)-1] {
			t.Fatalf("adopted %q %v, want %q %v", g2.ID(), m2, g.ID(), m1)
		}
		_ = g.Unlock(ctx)
		if _, err := third.TryLock(ctx, "a"); !errors.Is(err, lockstep.ErrLocked) {
			t.Fatalf("third's TryLock of the ancestor = %v, want ErrLocked", err)
		}
		if err := g2.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"a", "a/b", "c"} {
			if cs := cells(t, s, id); len(cs) != 0 {
				t.Fatalf("cells left in %q: %v", id, cs)
			}
		}
	})
}

// Every refusal of Adopt and Share says why and leaves the store as it was.
func TestQueueLock_ShareAndAdoptRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		giver, receiver := newLocker(t, s, nil), newLocker(t, s, nil)
		l, _ := giver.Lock(ctx, "a")
		tok, err := giver.Share(l)
		if err != nil {
			t.Fatal(err)
		}
		before := cells(t, s, "a")
		other, err := New(s, &Options{TTL: ttl, Renew: time.Second, Table: "other_lock"})
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close(ctx)
		elsewhere := newLocker(t, model.New(&clock.Local{}), nil)    // another keyspace: same table, other cells
		dc1 := newLocker(t, scoped{s, lockstep.LocalTo("dc1")}, nil) // another scope: DC-local rows
		tampered := tok[:len(tok)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(tok, "AA")]
		for _, c := range []struct {
			name string
			lk   *testLocker
			tok  string
			want error
		}{
			{"empty", receiver, "", lockstep.ErrShareToken},
			{"forged", receiver, "qs1.bm90IGEgdG9rZW4", lockstep.ErrShareToken},
			{"tampered", receiver, tampered, lockstep.ErrShareToken},
			{"another table", other, tok, lockstep.ErrShareToken},
			{"another scope", dc1, tok, lockstep.ErrShareToken},
			{"another keyspace", elsewhere, tok, lockstep.ErrReleased},
		} {
			if _, err := c.lk.Adopt(ctx, c.tok); !errors.Is(err, c.want) || !strings.Contains(err.Error(), "adopt") && c.want != lockstep.ErrShareToken {
				t.Errorf("%s: Adopt = %v, want %v", c.name, err, c.want)
			}
		}
		if after := cells(t, s, "a"); strings.Join(after, ",") != strings.Join(before, ",") {
			t.Fatalf("a refused Adopt changed the cells: %v, then %v", before, after)
		}
		// The giver itself holds the id: a second holder in one Locker is
		// refused (a waiter of the id is not: adoptbeside_test.go).
		if _, err := giver.Adopt(ctx, tok); !errors.Is(err, lockstep.ErrLocked) {
			t.Errorf("Adopt on the Locker holding the id = %v, want ErrLocked", err)
		}
		// Share refusals.
		if _, err := receiver.Share(l); !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("Share of another Locker's lock = %v, want ErrInvalidConfig", err)
		}
		if _, err := giver.Share(nil); !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("Share(nil) = %v, want ErrInvalidConfig", err)
		}
		// A token for a lock already released.
		if err := l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := giver.Share(l); !errors.Is(err, lockstep.ErrReleased) {
			t.Errorf("Share of an unlocked lock = %v, want ErrReleased", err)
		}
		if _, err := receiver.Adopt(ctx, tok); !errors.Is(err, lockstep.ErrReleased) {
			t.Errorf("Adopt of a released lock = %v, want ErrReleased", err)
		}
		if cs := cells(t, s, "a"); len(cs) != 0 {
			t.Fatalf("a refused Adopt left cells: %v", cs)
		}
	})
}

// A token whose lock expired (its giver stopped renewing, here by crashing:
// the planted ShareStopsGiver) is refused with ErrReleased, and the
// giver's Lost has closed: an expired token changes nothing.
func TestQueueLock_AdoptOfAnExpiredLockIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		giver, receiver := newPlanted(t, s, nil, &TestingKnobs{ShareStopsGiver: true}), newLocker(t, s, nil)
		l, _ := giver.Lock(ctx, "a")
		tok, err := giver.Share(l)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * ttl)
		if !isLost(l) {
			t.Fatal("the giver stopped renewing and its cells expired, yet its Lost is open")
		}
		if _, err := receiver.Adopt(ctx, tok); !errors.Is(err, lockstep.ErrReleased) {
			t.Fatalf("Adopt of an expired lock = %v, want ErrReleased", err)
		}
		if cs := cells(t, s, "a"); len(cs) != 0 {
			t.Fatalf("a refused Adopt left cells: %v", cs)
		}
	})
}

// The handover's cost on the model: Share sends nothing; Adopt of one id
// sends 4 requests on a Locker that has not read the id before (the floor
// cell, the read, the write, the read again), and the giver's leave 2
// (delete its owner cell, read the holders); the last holder's Unlock 3
// (its delete, the read, the queue cell's delete).
func TestQueueLock_HandoverRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := &countingStore{Store: model.New(&clock.Local{})}
		giver, receiver := newLocker(t, s, nil), newLocker(t, s, nil)
		l, _ := giver.Lock(ctx, "a")
		step := func(name string, want int, f func() error) {
			t.Helper()
			n := s.n.Load()
			if err := f(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got := s.n.Load() - n; got > int64(want) {
				t.Errorf("%s sent %d requests, want at most %d", name, got, want)
			} else {
				t.Logf("%s: %d requests", name, got)
			}
		}
		var tok string
		var l2 lockstep.Lock
		step("Share", 0, func() (err error) { tok, err = giver.Share(l); return })
		step("Adopt", 4, func() (err error) { l2, err = receiver.Adopt(ctx, tok); return })
		step("giver's Unlock", 3, func() error { return l.Unlock(ctx) })
		step("receiver's Unlock", 4, func() error { return l2.Unlock(ctx) })
	})
}

// Beside the holder's owner cell, another owner's conflicting owner cell
// (here a withdrawn claim's, left to its TTL) makes Adopt withdraw and try
// again a poll later, and it succeeds once that cell is gone.
func TestQueueLock_AdoptWaitsOutAThirdOwnersCell(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		giver, receiver := newLocker(t, s, nil), newLocker(t, s, nil)
		l, _ := giver.Lock(ctx, "a")
		tok, err := giver.Share(l)
		if err != nil {
			t.Fatal(err)
		}
		stray := layout.OwnerCell(layout.OwnerColumn("p9", 1), "p9.1", lockstep.Exclusive, time.Now().UnixMicro(), 2*time.Second)
		if err := s.Put(ctx, DefaultTable, "a", stray); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		l2, err := receiver.Adopt(ctx, tok)
		if err != nil {
			t.Fatalf("Adopt beside a stray owner cell = %v", err)
		}
		if waited := time.Since(start); waited < time.Second {
			t.Fatalf("Adopt succeeded after %v, while the stray cell was live", waited)
		}
		_ = l.Unlock(ctx)
		if err := l2.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})
}
