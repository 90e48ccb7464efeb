package locktest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
)

// Recording is a Store that logs every write and delete it passes on to
// Store, one line per cell written or per delete request, with table, row,
// column, value (hex), timestamp and TTL: the bytes a Locker puts on the
// wire. Tests pin a storage format with it. Safe for concurrent use.
type Recording struct {
	lockstep.Store

	mu  sync.Mutex
	log []string
}

// Put logs cells and passes them on.
func (r *Recording) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	r.mu.Lock()
	for _, c := range cells {
		r.log = append(r.log, fmt.Sprintf("put %s/%s %q=%x ts=%d ttl=%v", table, row, c.Column, c.Value, c.Timestamp, c.TTL))
	}
	r.mu.Unlock()
	return r.Store.Put(ctx, table, row, cells...)
}

// Delete logs the delete and passes it on.
func (r *Recording) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	r.mu.Lock()
	r.log = append(r.log, fmt.Sprintf("delete %s/%s %q ts=%d", table, row, columns, ts))
	r.mu.Unlock()
	return r.Store.Delete(ctx, table, row, ts, columns...)
}

// Log returns the lines logged so far.
func (r *Recording) Log() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.log...)
}

// Expect fails t unless the lines logged so far are want, in order.
func (r *Recording) Expect(t testing.TB, want []string) {
	t.Helper()
	if got := r.Log(); !slices.Equal(got, want) {
		t.Errorf("writes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// HoldOnce takes id with l (with TryLock if try, else Lock), keeps it for
// hold (on the test's clock: fake time inside a synctest bubble) and
// releases it. Any error fails t.
func HoldOnce(t testing.TB, l lockstep.Locker, id string, try bool, hold time.Duration) {
	t.Helper()
	ctx := context.Background()
	acquire := l.Lock
	if try {
		acquire = l.TryLock
	}
	h, err := acquire(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(hold)
	if err := h.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}
