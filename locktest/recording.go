package locktest

import (
	"context"
	"fmt"
	"sync"

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
