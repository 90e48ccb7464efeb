//go:build integration

package cassandra_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/fence"
	"github.com/lockstep-go/lockstep/fence/fencetest"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

func newFenceStore(t testing.TB, opts ...cassandra.FenceOption) *cassandra.FenceStore {
	t.Helper()
	session, _ := itSession(t)
	s, err := cassandra.NewFenceStore(session, itKeyspace, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var _ fence.Store = (*cassandra.FenceStore)(nil)

// TestFenceConformance runs the fence store suite, which model.FenceStore
// passes, on real lightweight transactions, at SERIAL and LOCAL_SERIAL.
func TestFenceConformance(t *testing.T) {
	for _, serial := range []gocql.SerialConsistency{gocql.Serial, gocql.LocalSerial} {
		t.Run(serial.String(), func(t *testing.T) {
			opts := []cassandra.FenceOption{cassandra.WithSerialConsistency(serial)}
			session, _ := itSession(t)
			if serial == gocql.LocalSerial {
				// The cluster's first data centre ("datacenter1" on one),
				// through a session that sends every request there:
				// LOCAL_SERIAL orders only writers coordinated in one data
				// centre.
				dc := shared.topology.DCs()[0]
				opts = append(opts, cassandra.WithFenceLocalDC(dc))
				session = dcSession(t, dc)
			}
			store, err := cassandra.NewFenceStore(session, itKeyspace, opts...)
			if err != nil {
				t.Fatal(err)
			}
			fencetest.Run(t, func(t *testing.T) fencetest.Harness {
				return fencetest.Harness{Store: store, Table: fence.DefaultTable}
			})
		})
	}
}

// TestFence_HolderPausedPastItsLeaseHasItsWriteRejected is the model test of
// package fence on a real node, in real time: a holds a queue lock with
// fencing and commits; a pauses (nothing it sends to the lock store arrives,
// so its renewals fail and its cells expire); b takes the lock with a higher
// token and commits; a resumes and its commit is refused.
func TestFence_HolderPausedPastItsLeaseHasItsWriteRejected(t *testing.T) {
	// The smallest TTL queuelock accepts with its default MaxServerSkew
	// (1s): a lease window of (4s − 1s − 1s)/2 = 1s on a real node.
	const ttl = 4 * time.Second
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cells := newStore(t)
	id := fmt.Sprintf("it/fence/%x", time.Now().UnixNano())
	tokens, err := clock.NewGlobal(cells, "", &clock.Local{})
	if err != nil {
		t.Fatal(err)
	}
	pause, err := model.NewFaulty(cells, model.FaultConfig{FailBefore: 1})
	if err != nil {
		t.Fatal(err)
	}
	pause.SetEnabled(false)
	newLocker := func(s lockstep.Store, process string) *queuelock.Locker {
		l, err := queuelock.New(s, &queuelock.Options{ProcessID: process, TTL: ttl, Fencing: tokens})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close(context.WithoutCancel(ctx)) })
		return l
	}
	a, b := newLocker(pause, "a"), newLocker(cells, "b")
	resource, err := fence.NewRegister(newFenceStore(t), "")
	if err != nil {
		t.Fatal(err)
	}

	la, err := a.Lock(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	fa := la.(lockstep.Fenced)
	if err := resource.Commit(ctx, fa, id, []byte("a: step 1")); err != nil {
		t.Fatalf("a's first commit: %v", err)
	}

	pause.SetEnabled(true)
	select {
	case <-la.Lost():
	case <-ctx.Done():
		t.Fatal("a's lease was never lost while its renewals failed")
	}
	lb, err := b.Lock(ctx, id) // waits for a's cells to expire
	if err != nil {
		t.Fatalf("b: %v", err)
	}
	defer lb.Unlock(context.WithoutCancel(ctx))
	fb := lb.(lockstep.Fenced)
	if fb.Token() <= fa.Token() {
		t.Fatalf("b's token %d is not above a's %d", fb.Token(), fa.Token())
	}
	if err := resource.Commit(ctx, fb, id, []byte("b: step 1")); err != nil {
		t.Fatalf("b's commit: %v", err)
	}

	pause.SetEnabled(false)
	err = resource.Commit(ctx, fa, id, []byte("a: step 2"))
	var stale *fence.StaleTokenError
	if !errors.Is(err, lockstep.ErrStaleToken) || !errors.As(err, &stale) || stale.Current != fb.Token() {
		t.Fatalf("a's late commit: %v; want ErrStaleToken naming b's token %d", err, fb.Token())
	}
	if v, err := resource.Load(ctx, id); err != nil || string(v.Value) != "b: step 1" || v.Token != fb.Token() {
		t.Fatalf("resource holds %+v (%v), want b's write", v, err)
	}
	_ = la.Unlock(context.WithoutCancel(ctx))
}

// BenchmarkFenceCommit measures one holder's commits to one existing key
// (one lightweight transaction each) and stale commits refused.
func BenchmarkFenceCommit(b *testing.B) {
	ctx := b.Context()
	r, err := fence.NewRegister(newFenceStore(b), "")
	if err != nil {
		b.Fatal(err)
	}
	key := fmt.Sprintf("bench/fence/%x", time.Now().UnixNano())
	if err := r.CommitToken(ctx, 1_000_000, key, []byte("v")); err != nil {
		b.Fatal(err)
	}
	b.Run("applied", func(b *testing.B) {
		for i := range b.N {
			if err := r.CommitToken(ctx, int64(1_000_001+i), key, []byte("v")); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stale", func(b *testing.B) {
		for range b.N {
			if err := r.CommitToken(ctx, 1, key, []byte("v")); !errors.Is(err, lockstep.ErrStaleToken) {
				b.Fatal(err)
			}
		}
	})
}
