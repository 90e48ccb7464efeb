package queue

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// A retried Unlock must not delete the Locker's owner cell while a newer
// acquisition of the same Locker holds the id. Found by review: an attempt
// whose cleanup delete failed kept the owner column among its stale cells,
// the handle inherited them, and the retry deleted the column through them
// even though it had not taken the turn back — leaving the newer holder
// with no owner cell, so a waiter could claim beside it.
func TestQueueLock_RetriedUnlockLeavesANewerHoldersOwnerCell(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		if ok, cells, col := retriedUnlockBesideNewerHolder(t, nil); !ok {
			t.Fatalf("h2 holds the lock, but its owner cell %s is gone after h1's retried Unlock: %v", col, cells)
		}
	})
}

// retriedUnlockBesideNewerHolder runs the scenario above on one Locker: h1's
// attempt leaves a failed cleanup behind, h1's first Unlock fails, h2 takes
// the id, and h1's Unlock is retried. It reports whether h2's owner cell is
// still there, with the row's cells and the owner column.
func retriedUnlockBesideNewerHolder(t *testing.T, k *TestingKnobs) (ok bool, cells []lockstep.Cell, col string) {
	ctx := context.Background()
	base := model.New(&clock.Local{})
	var puts, dels atomic.Int64
	f := &failing{Store: base,
		failPut:    func([]lockstep.Cell) bool { return puts.Add(1) == 1 }, // the fast claim: its cells may have landed
		failDelete: func([]string) bool { return dels.Add(1) <= 2 },        // the cleanup, then h1's first Unlock
	}
	f.on.Store(true)
	l := newPlanted(t, f, nil, k)
	h1, err := l.Lock(ctx, "id")
	if err != nil {
		t.Fatal(err)
	}
	if err := h1.Unlock(ctx); err == nil {
		t.Fatal("h1's first Unlock succeeded; the test needs it to fail")
	}
	h2, err := l.Lock(ctx, "id")
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Unlock(ctx)
	if err := h1.Unlock(ctx); err != nil {
		t.Fatalf("h1's retried Unlock = %v", err)
	}
	cells, err = base.Read(ctx, DefaultTable, "id", lockstep.Slice{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		if c.Column == l.ownerCol && string(c.Value) == h2.Owner() {
			return true, cells, l.ownerCol
		}
	}
	return false, cells, l.ownerCol
}
