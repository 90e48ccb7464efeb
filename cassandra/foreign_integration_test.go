//go:build integration

package cassandra_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/queuelock"
)

// On a real node as on the model (queuelock's foreign_test.go): a cell no
// Locker writes in a lock's queue partition fails Lock and TryLock with a
// *lockstep.ForeignCellError naming it, and leaves the partition as it was.
func TestForeignCell_IsAnErrorTheCallerSees(t *testing.T) {
	ctx := context.Background()
	store := locktest.Prefixed(newStore(t), fmt.Sprintf("it/foreign/%x/", time.Now().UnixNano()))
	l, err := queuelock.New(store, &queuelock.Options{TTL: 6 * time.Second, Renew: time.Second, Poll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx)
	foreign := lockstep.Cell{Column: "zz", Value: []byte("another writer"), Timestamp: time.Now().UnixMicro(), TTL: time.Minute}
	if err := store.Put(ctx, queuelock.DefaultTable, "id", foreign); err != nil {
		t.Fatal(err)
	}
	for name, acquire := range map[string]func(context.Context, string) (lockstep.Lock, error){"Lock": l.Lock, "TryLock": l.TryLock} {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		h, err := acquire(ctx, "id")
		cancel()
		if h != nil {
			_ = h.Unlock(context.Background())
		}
		var fe *lockstep.ForeignCellError
		if !errors.As(err, &fe) || fe.Column != "zz" || fe.Table != queuelock.DefaultTable {
			t.Fatalf("%s = %v, want a *lockstep.ForeignCellError naming %s/zz", name, err, queuelock.DefaultTable)
		}
		t.Logf("%s: %v", name, err)
		cells, err := store.Read(context.Background(), queuelock.DefaultTable, "id", lockstep.Slice{})
		if err != nil {
			t.Fatal(err)
		}
		if len(cells) != 1 || cells[0].Column != "zz" || cells[0].Timestamp != foreign.Timestamp {
			t.Fatalf("after %s the partition holds %v, want only the foreign cell as written", name, cells)
		}
	}
}
