package inspect_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/inspect"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// writes counts the writes through a Store, to show Read makes none.
type writes struct {
	lockstep.Store
	n atomic.Int64
}

func (w *writes) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	w.n.Add(1)
	return w.Store.Put(ctx, table, row, cells...)
}

func (w *writes) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	w.n.Add(1)
	return w.Store.Delete(ctx, table, row, ts, columns...)
}

func TestRead_NamesTheHolderOfARealLockAndWritesNothing(t *testing.T) {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	l, err := queuelock.New(store, &queuelock.Options{ProcessID: "web-1", TTL: 30 * time.Second})
	require.NoError(t, err)
	defer l.Close(ctx)
	h, err := l.Lock(ctx, "invoice/42")
	require.NoError(t, err)
	defer h.Unlock(context.WithoutCancel(ctx))

	w := &writes{Store: store}
	lc, err := inspect.Read(ctx, w, inspect.Tables{}, "invoice/42", false)
	require.NoError(t, err)
	require.Zero(t, w.n.Load(), "Read wrote to the store")
	require.Len(t, lc.Owners, 1)
	require.Equal(t, h.Owner(), lc.Owners[0].ID)
	require.Equal(t, "web-1", lc.Owners[0].Process)
	require.Equal(t, lockstep.Exclusive, lc.Owners[0].Access)
	require.Empty(t, lc.Waiting())
	require.True(t, lc.Compatible())
	_, held := lc.LegacyHolder()
	require.False(t, held, "a queue lock writes no legacy cell")

	free, err := inspect.Read(ctx, w, inspect.Tables{}, "invoice/43", false)
	require.NoError(t, err)
	require.Empty(t, free.Owners)
	require.Empty(t, free.Queue)
}

func TestRead_WaitersComeInLineOrderWithTheirAccessAndWait(t *testing.T) {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	now := time.Now()
	t0 := now.Add(-3 * time.Second).UnixMicro()
	ttl := 30 * time.Second
	ts := now.UnixMicro()
	require.NoError(t, store.Put(ctx, "queue_lock", "hot",
		layout.WakeQueueCell(layout.QueueColumn(t0, "a.1"), "a.1", lockstep.Exclusive, "", ts, ttl),
		layout.WakeQueueCell(layout.QueueColumn(t0+2_000_000, "c.1"), "c.1", lockstep.Shared, "", ts, ttl),
		layout.WakeQueueCell(layout.QueueColumn(t0+1_000_000, "b.1"), "b.1", lockstep.Exclusive, "", ts, ttl),
		layout.OwnerCell(layout.OwnerColumn("a", 1), "a.1", lockstep.Exclusive, ts, ttl),
		lockstep.Cell{Column: "stray", Value: []byte("x"), Timestamp: ts},
	))
	lc, err := inspect.Read(ctx, store, inspect.Tables{}, "hot", false)
	require.NoError(t, err)
	require.Len(t, lc.Owners, 1)
	require.Equal(t, t0, lc.Owners[0].Enqueued, "the holder's queue cell says when it enqueued")
	waiting := lc.Waiting()
	require.Len(t, waiting, 2)
	require.Equal(t, []string{"b.1", "c.1"}, []string{waiting[0].ID, waiting[1].ID}, "line order is the queue cells' time order, not the write order")
	require.Equal(t, lockstep.Shared, waiting[1].Access)
	require.InDelta(t, 2*time.Second, waiting[0].Waited(now), float64(time.Millisecond))
	require.Len(t, lc.Foreign, 1)
	require.Equal(t, "stray", lc.Foreign[0].Column)
}

func TestRead_LegacyHolderIsTheMainRowsOneCell(t *testing.T) {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	ts := time.Now().UnixMicro()
	require.NoError(t, store.Put(ctx, "legacy_main", "old", layout.LegacyCell("batch.7", ts, 30*time.Second)))
	lc, err := inspect.Read(ctx, store, inspect.Tables{}, "old", false)
	require.NoError(t, err)
	owner, ok := lc.LegacyHolder()
	require.True(t, ok)
	require.Equal(t, "batch.7", owner)

	require.NoError(t, store.Put(ctx, "legacy_main", "old", layout.LegacyCell("batch.8", ts, 30*time.Second)))
	lc, err = inspect.Read(ctx, store, inspect.Tables{}, "old", false)
	require.NoError(t, err)
	_, ok = lc.LegacyHolder()
	require.False(t, ok, "two cells in the main row: nobody holds it")
}

func TestRead_RefusesABadTableNameOrIDBeforeReading(t *testing.T) {
	ctx := context.Background()
	w := &writes{Store: model.New(&clock.Local{})}
	_, err := inspect.Read(ctx, w, inspect.Tables{Queue: "Queue-Lock"}, "x", false)
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	require.ErrorContains(t, err, "Tables.Queue")
	_, err = inspect.Read(ctx, w, inspect.Tables{}, "", false)
	require.Error(t, err)
}

// A release of a Locker recording evidence leaves the evidence cell: Read
// reports its token, and counts it neither as a holder nor as a waiter.
func TestRead_ReportsTheRecordedEvidence(t *testing.T) {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	g, err := clock.NewGlobal(store, "", &clock.Local{})
	require.NoError(t, err)
	l, err := queuelock.New(store, &queuelock.Options{ProcessID: "web-1", Fencing: g, Evidence: queuelock.EvidenceRecord})
	require.NoError(t, err)
	defer l.Close(ctx)
	h, err := l.Lock(ctx, "invoice/42")
	require.NoError(t, err)
	require.NoError(t, h.Unlock(ctx))

	lc, err := inspect.Read(ctx, store, inspect.Tables{}, "invoice/42", false)
	require.NoError(t, err)
	require.Equal(t, h.(lockstep.Fenced).Token(), lc.Evidence)
	require.Empty(t, lc.Owners)
	require.Empty(t, lc.Queue)
	require.Empty(t, lc.Foreign)
}
