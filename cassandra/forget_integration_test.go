//go:build integration

package cassandra_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/schema"
)

// A service locking ever new ids leaves nothing live in the table: 500
// distinct ids, each locked and released twice (the second claim publishes
// the floor cell), then, past the floor cell's TTL (2×TTL + Poll, whole
// seconds), no id's partition has a live cell. Read with CQL, by partition,
// as an operator would. Each partition is judged alone, so more ids would
// only repeat the check (2,000 cost int-3 86 s, most of it the locking).
func TestQueueLock_ReleasedIDsLeaveNoLiveCellAfterTheTTL(t *testing.T) {
	const (
		n    = 500
		ttl  = 5 * time.Second // comfortably above the shortest TTL the lease accepts
		poll = 50 * time.Millisecond
	)
	session, _ := itSession(t)
	store := newStore(t)
	l, err := queuelock.New(store, &queuelock.Options{TTL: ttl, Poll: poll, MaxClockSkew: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	defer func() { _ = l.Close(context.WithoutCancel(ctx)) }()

	prefix := "forget/" + strconv.FormatInt(time.Now().UnixNano(), 36) + "/"
	ids := make([]string, n)
	for i := range ids {
		ids[i] = prefix + strconv.Itoa(i)
	}
	for range 2 {
		for _, id := range ids {
			h, err := l.Lock(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The floor cell's TTL, whole seconds, one more for whole-second expiry
	// and a margin for the replicas' clocks.
	time.Sleep(2*ttl + poll + 3*time.Second)

	table := schema.DefaultTables().QueueLock
	q := fmt.Sprintf("SELECT column_name FROM %s.%s WHERE row_key = ?", itKeyspace, table)
	live := 0
	for _, id := range ids {
		iter := session.Query(q, id).WithContext(ctx).Iter()
		var col string
		for iter.Scan(&col) {
			live++
			if live <= 5 {
				t.Logf("live cell %q of %q", col, id)
			}
		}
		if err := iter.Close(); err != nil {
			t.Fatalf("reading %q: %v", id, err)
		}
	}
	if live != 0 {
		t.Fatalf("%d live cells in %d released ids' partitions, want none", live, n)
	}
}
