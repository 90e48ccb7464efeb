package combined

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// A combined Locker whose queue half records evidence writes each combined
// lock's token into the queue partition with its release, where a lock of
// mode new at EvidenceUse reads it (docs/algorithms.md, section 5.3); one
// that records nothing writes none.
func TestCombined_TheQueueHalfRecordsTheCombinedToken(t *testing.T) {
	ctx := context.Background()
	for _, e := range []queuelock.Evidence{queuelock.EvidenceOff, queuelock.EvidenceRecord} {
		s := model.New(&clock.Local{})
		g, err := clock.NewGlobal(s, "", &clock.Local{})
		require.NoError(t, err)
		o := opts(locktest.Timing{}, 1)
		o.Queue.Evidence, o.Fencing = e, g
		l, err := New(s, o)
		require.NoError(t, err, "%v", e)
		lk, err := l.Lock(ctx, "x")
		require.NoError(t, err)
		token := lk.(lockstep.Fenced).Token()
		require.NoError(t, lk.Unlock(ctx))
		require.NoError(t, l.Close(ctx))

		cells, err := s.Read(ctx, queuelock.DefaultTable, "x", lockstep.Slice{})
		require.NoError(t, err)
		var recorded int64
		for _, c := range cells {
			if c.Column == layout.EvidenceColumn {
				recorded, err = layout.DecodeEvidence(c.Value)
				require.NoError(t, err)
			}
		}
		if e == queuelock.EvidenceOff {
			require.Zero(t, recorded, "EvidenceOff records nothing")
		} else {
			require.Equal(t, token, recorded, "the queue half's release records the combined token")
		}
	}
}

// A combined Locker refuses EvidenceUse (its token is drawn after both
// halves, never beside a claim) and evidence without Fencing; each refusal
// says what to do and writes nothing.
func TestCombined_EvidenceRefusals(t *testing.T) {
	s := model.New(&clock.Local{})
	g, err := clock.NewGlobal(s, "", &clock.Local{})
	require.NoError(t, err)
	for name, c := range map[string]struct {
		e     queuelock.Evidence
		fence *clock.Global
		says  string
	}{
		"use":             {queuelock.EvidenceUse, g, "use EvidenceRecord here"},
		"without fencing": {queuelock.EvidenceRecord, nil, "needs Fencing"},
	} {
		o := opts(locktest.Timing{}, 1)
		o.Queue.Evidence, o.Fencing = c.e, c.fence
		_, err := New(s, o)
		require.ErrorIs(t, err, lockstep.ErrInvalidConfig, name)
		require.ErrorContains(t, err, c.says, name)
	}
	if st := s.Stats(); st.Puts+st.Deletes+st.Reads != 0 {
		t.Fatalf("refused options touched the store: %+v", st)
	}
}
