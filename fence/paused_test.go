package fence_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/fence"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// A holder that pauses past its lease (its renewals never arrive, its cells
// expire), while another process takes the lock and writes, must have its
// write refused when it resumes: the lock cannot stop that write, the fence
// must. In virtual time on the model.
func TestRegister_HolderPausedPastItsLeaseHasItsWriteRejected(t *testing.T) {
	const (
		id  = "invoice/42"
		ttl = 10 * time.Second
	)
	ctx := t.Context()
	clk := model.NewManualClock(0)
	cells := model.New(clk)
	tokens, err := clock.NewGlobal(cells, "", clk)
	if err != nil {
		t.Fatal(err)
	}
	// Everything a sends to the lock's store goes through pause; once
	// enabled, nothing a sends arrives.
	pause, err := model.NewFaulty(cells, model.FaultConfig{FailBefore: 1})
	if err != nil {
		t.Fatal(err)
	}
	pause.SetEnabled(false)
	newLocker := func(s lockstep.Store, process string) *queuelock.Locker {
		l, err := queuelock.New(s, &queuelock.Options{ProcessID: process, TTL: ttl, Clock: clk, Fencing: tokens})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close(ctx) })
		return l
	}
	a, b := newLocker(pause, "a"), newLocker(cells, "b")
	resource, err := fence.NewRegister(model.NewFenceStore(), "")
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

	// a pauses: its renewals fail, its lease lapses, its cells expire.
	pause.SetEnabled(true)
	clk.Advance(ttl + time.Second)
	select {
	case <-la.Lost():
	default:
		t.Fatal("a's lease outlived its cells")
	}

	lb, err := b.TryLock(ctx, id)
	if err != nil {
		t.Fatalf("b could not take the lock a's cells no longer hold: %v", err)
	}
	t.Cleanup(func() { _ = lb.Unlock(ctx) })
	fb := lb.(lockstep.Fenced)
	if fb.Token() <= fa.Token() {
		t.Fatalf("b's token %d is not above a's %d", fb.Token(), fa.Token())
	}
	if err := resource.Commit(ctx, fb, id, []byte("b: step 1")); err != nil {
		t.Fatalf("b's commit: %v", err)
	}

	// a resumes: the write it prepared before the pause goes out now.
	pause.SetEnabled(false)
	err = resource.Commit(ctx, fa, id, []byte("a: step 2"))
	var stale *fence.StaleTokenError
	if !errors.Is(err, lockstep.ErrStaleToken) || !errors.As(err, &stale) || stale.Current != fb.Token() {
		t.Fatalf("a's late commit: %v; want ErrStaleToken naming b's token %d", err, fb.Token())
	}
	if v, err := resource.Load(ctx, id); err != nil || string(v.Value) != "b: step 1" || v.Token != fb.Token() {
		t.Fatalf("resource holds %+v (%v), want b's write", v, err)
	}
	_ = la.Unlock(ctx)
}
