//go:build integration

package cassandra_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/wakeup"
)

// handoffCount counts the releases that handed the lock over in one
// request (queuelock.Options.Handoff): the PutDeletes that write a handed
// cell. (A holder's first renewal is a PutDelete too: its owner cell and
// its queue cell's tombstone.)
type handoffCount struct {
	*cassandra.Store
	n atomic.Int64
}

func (h *handoffCount) PutDelete(ctx context.Context, table, row string, ts int64, cols []string, cells ...lockstep.Cell) error {
	for _, c := range cells {
		if e, err := layout.Parse(c.Column, c.Value); err == nil && layout.IsHandedFor(c.Column, e.Owner) {
			h.n.Add(1)
			break
		}
	}
	return h.Store.PutDelete(ctx, table, row, ts, cols, cells...)
}

// TestHandoff_HotLockOnRealCassandra: three Lockers with wake-ups over UDP
// and Handoff take one id in turn; the lock is handed over by single
// requests (a single-partition batch of deletes and an update) and never
// held twice at once.
func TestHandoff_HotLockOnRealCassandra(t *testing.T) {
	store := &handoffCount{Store: newStore(t)}
	key := make([]byte, wakeup.MinKeyBytes)
	_, _ = rand.Read(key)
	id := fmt.Sprintf("it/handoff/%x", time.Now().UnixNano())
	var holders, acquisitions atomic.Int64
	var wg sync.WaitGroup
	for i := range 3 {
		udp, err := wakeup.ListenUDP("127.0.0.1:0", "")
		if err != nil {
			t.Fatal(err)
		}
		l, err := queuelock.New(store, &queuelock.Options{ProcessID: fmt.Sprintf("h%d", i), TTL: 6 * time.Second, Poll: 50 * time.Millisecond,
			Wake: &queuelock.Wake{Transport: udp, Key: key}, Handoff: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close(context.Background()); _ = udp.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			for range 10 {
				lk, err := l.Lock(ctx, id)
				if err != nil {
					t.Error(err)
					return
				}
				if holders.Add(1) != 1 {
					t.Error("two holders at once")
				}
				acquisitions.Add(1)
				time.Sleep(2 * time.Millisecond)
				holders.Add(-1)
				if err := lk.Unlock(ctx); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if acquisitions.Load() != 30 {
		t.Fatalf("%d acquisitions, want 30", acquisitions.Load())
	}
	if store.n.Load() == 0 {
		t.Fatal("no release handed the lock over")
	}
	t.Logf("%d of 30 releases handed the lock over in one request", store.n.Load())
}
