package queue

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model"
)

// slicesRead records the slices of every read of the queue table.
type slicesRead struct {
	*model.Store
	mu     sync.Mutex
	slices []lockstep.Slice
}

func (s *slicesRead) Read(ctx context.Context, t, r string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	if t == DefaultTable {
		s.mu.Lock()
		s.slices = append(s.slices, sl)
		s.mu.Unlock()
	}
	return s.Store.Read(ctx, t, r, sl)
}

func covers(sl lockstep.Slice, col string) bool {
	return sl.From <= col && (sl.To == "" || col < sl.To)
}

// A read repair carries to the replicas it repairs exactly the cells its
// read returned, so Lemma 15's step (2) holds only if every read that can
// return an owner cell's tombstone returns the evidence cell beside it
// (docs/algorithms.md, section 5.3). That includes a read of the reader's
// own column: it holds the tombstone of this Locker's previous release of
// the id, and repairing that tombstone alone onto a replica that missed the
// release lets a later claim's read meet the release there without its
// evidence. Here an intention Locker with IntentionRange takes IX twice,
// and TryLocks once, recording evidence: every read that covers its owner
// column must cover the evidence column too.
func TestEvidence_EveryReadOfAnOwnerColumnCoversTheEvidence(t *testing.T) {
	ctx := context.Background()
	s := &slicesRead{Store: model.New(&clock.Local{})}
	g, err := clock.NewGlobal(s.Store, "", &clock.Local{})
	require.NoError(t, err)
	l, err := New(s, &Options{TTL: ttl, Renew: time.Second, Poll: 10 * time.Millisecond, IntentionRange: true,
		Fencing: g, Evidence: EvidenceRecord})
	require.NoError(t, err)
	defer l.Close(ctx)
	for _, try := range []bool{false, false, true} {
		lk, err := l.acquireOne(ctx, "a", lockstep.IntentExclusive, try)
		require.NoError(t, err)
		require.NoError(t, lk.Unlock(ctx))
	}
	own := l.column(lockstep.IntentExclusive, 0)
	require.True(t, layout.InIntentionRange(own), "the test needs an owner column in the intention range")
	s.mu.Lock()
	defer s.mu.Unlock()
	require.NotEmpty(t, s.slices)
	for _, sl := range s.slices {
		if covers(sl, own) {
			require.True(t, covers(sl, layout.EvidenceColumn),
				"a read of [%q, %q) returns the owner column %q but not the evidence cell: its repair can carry a release's tombstone without the release's evidence", sl.From, sl.To, own)
		}
	}
}
