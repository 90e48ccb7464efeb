//go:build integration

package cassandra_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/queuelock"
)

// The scopes of docs/multi-dc.md on a cluster of two data centres
// (scripts/cassandra up --nodes 3 --dcs 2: dc1 × 2, dc2 × 1; the keyspace is
// NetworkTopologyStrategy with a factor per data centre). Each client's
// session sends every request to its own data centre (dcSession). On one
// data centre the tests that need two skip, saying so.

// twoDCs returns the cluster's first two data centres, or skips.
func twoDCs(t *testing.T) (string, string) {
	t.Helper()
	itSession(t)
	dcs := shared.topology.DCs()
	if len(dcs) < 2 {
		t.Skipf("needs a cluster of two data centres (scripts/cassandra up --nodes 3 --dcs 2); this one has %v", dcs)
	}
	return dcs[0], dcs[1]
}

func dcStore(t *testing.T, dc string, opts ...cassandra.Option) *cassandra.Store {
	t.Helper()
	s, err := cassandra.New(dcSession(t, dc), itKeyspace, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func dcLocker(t *testing.T, s lockstep.Store, process string) *queuelock.Locker {
	t.Helper()
	l, err := queuelock.New(s, &queuelock.Options{ProcessID: process, Poll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

func dcLockID(t *testing.T) string {
	return fmt.Sprintf("it/dc/%s/%x", t.Name(), time.Now().UnixNano())
}

// A global lock contended by two clients, one in each data centre, never has
// two holders: at QUORUM/QUORUM (the default) and at the cheaper pair that
// keeps reads local, EACH_QUORUM writes with LOCAL_QUORUM reads.
func TestDC_GlobalLockIsExclusiveAcrossDataCentres(t *testing.T) {
	dc1, dc2 := twoDCs(t)
	for _, tc := range []struct {
		name string
		opts []cassandra.Option
	}{
		{"QUORUM", nil},
		{"EACH_QUORUM-write-LOCAL_QUORUM-read", []cassandra.Option{cassandra.WithConsistency(gocql.LocalQuorum, gocql.EachQuorum)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			id := dcLockID(t)
			var holders, overlaps atomic.Int32
			taken := map[string]int{}
			var mu sync.Mutex
			var wg sync.WaitGroup
			errs := make(chan error, 2)
			for _, dc := range []string{dc1, dc2} {
				l := dcLocker(t, dcStore(t, dc, tc.opts...), "client-in-"+dc)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 6 {
						lk, err := l.Lock(ctx, id)
						if err != nil {
							errs <- fmt.Errorf("%s: %w", dc, err)
							return
						}
						if holders.Add(1) != 1 {
							overlaps.Add(1)
						}
						time.Sleep(30 * time.Millisecond)
						holders.Add(-1)
						mu.Lock()
						taken[dc]++
						mu.Unlock()
						if err := lk.Unlock(context.WithoutCancel(ctx)); err != nil {
							errs <- fmt.Errorf("%s: unlock: %w", dc, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if overlaps.Load() != 0 {
				t.Fatalf("%d overlapping holds of global lock %q by clients in %s and %s", overlaps.Load(), id, dc1, dc2)
			}
			if taken[dc1] != 6 || taken[dc2] != 6 {
				t.Fatalf("holds per data centre: %v, want 6 each", taken)
			}
		})
	}
}

// A DC-local lock of one name is held at once in dc1 and in dc2 (by clients
// local to each), and beside them the global lock of the same name: three
// rows. Within dc1 it still excludes.
func TestDC_LocalLockOfOneNameIsHeldInEachDataCentreAtOnce(t *testing.T) {
	dc1, dc2 := twoDCs(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	id := dcLockID(t)
	var held []lockstep.Lock
	for _, l := range []*queuelock.Locker{
		dcLocker(t, dcStore(t, dc1, cassandra.WithLocalDC(dc1)), "local-"+dc1),
		dcLocker(t, dcStore(t, dc2, cassandra.WithLocalDC(dc2)), "local-"+dc2),
		dcLocker(t, newStore(t), "global"),
	} {
		lk, err := l.TryLock(ctx, id)
		if err != nil {
			t.Fatalf("TryLock %q while %d others of the name are held: %v", id, len(held), err)
		}
		held = append(held, lk)
	}
	other := dcLocker(t, dcStore(t, dc1, cassandra.WithLocalDC(dc1)), "second-local-"+dc1)
	if _, err := other.TryLock(ctx, id); !errors.Is(err, lockstep.ErrLocked) {
		t.Fatalf("a second client in %s: TryLock got %v, want ErrLocked", dc1, err)
	}
	for _, lk := range held {
		if err := lk.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	lk, err := other.TryLock(ctx, id)
	if err != nil {
		t.Fatalf("after the unlocks, %s's second client: %v", dc1, err)
	}
	_ = lk.Unlock(ctx)
}

// A client whose session is routed to dc2 cannot take dc1's DC-local lock:
// the store sees a coordinator of dc2 answer and refuses, and Lock fails at
// once saying how to route the session.
func TestDC_LocalLockOfAnotherDataCentreIsRefused(t *testing.T) {
	dc1, dc2 := twoDCs(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	l := dcLocker(t, dcStore(t, dc2, cassandra.WithLocalDC(dc1)), "misrouted")
	start := time.Now()
	_, err := l.Lock(ctx, dcLockID(t))
	if !errors.Is(err, lockstep.ErrRefused) || !strings.Contains(err.Error(), fmt.Sprintf("in data centre %q, but the store is local to %q", dc2, dc1)) ||
		!strings.Contains(err.Error(), "DataCentreHostFilter") {
		t.Fatalf("Lock through %s of a lock local to %s: got %v, want a refusal naming both and the routing", dc2, dc1, err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("the refusal took %v: it must not wait out ctx", d)
	}
	t.Logf("refused in %v: %v", time.Since(start).Round(time.Millisecond), err)
}

// A global lock asked for at levels that meet in one data centre only is
// refused when the store is built, with an error that says what to use.
// (A configuration check: it runs on any cluster.)
func TestDC_GlobalLockAtLocalLevelsIsRefused(t *testing.T) {
	session, _ := itSession(t)
	_, err := cassandra.New(session, itKeyspace, cassandra.WithConsistency(gocql.LocalQuorum, gocql.LocalQuorum))
	if !errors.Is(err, lockstep.ErrInvalidConfig) || !strings.Contains(err.Error(), "cannot keep a global lock global") ||
		!strings.Contains(err.Error(), "EACH_QUORUM writes with LOCAL_QUORUM reads") || !strings.Contains(err.Error(), "WithLocalDC") {
		t.Fatalf("global store at LOCAL_QUORUM: got %v", err)
	}
	_, err = cassandra.NewFenceStore(session, itKeyspace, cassandra.WithSerialConsistency(gocql.LocalSerial))
	if !errors.Is(err, lockstep.ErrInvalidConfig) || !strings.Contains(err.Error(), "use SERIAL") || !strings.Contains(err.Error(), "WithFenceLocalDC") {
		t.Fatalf("global fence store at LOCAL_SERIAL: got %v", err)
	}
}
