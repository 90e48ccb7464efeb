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
	"github.com/lockstep-go/lockstep/shadowlock"
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
		"without fencing": {queuelock.EvidenceRecord, nil, "set Options.Fencing, or leave Queue.Evidence off"},
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

// A composed Locker records through the queue Locker it is given, which
// records the tokens drawn through its own Fencing: Compose refuses another
// token service for the combined locks (their tokens would go unrecorded,
// and a claim at EvidenceUse could keep a token below one), says what to
// pass, and with that same one records each combined token.
func TestCompose_DrawsThroughTheQueueLockersRecordingFencing(t *testing.T) {
	ctx := context.Background()
	s := model.New(&clock.Local{})
	g1, err := clock.NewGlobal(s, "", &clock.Local{})
	require.NoError(t, err)
	g2, err := clock.NewGlobal(s, "", &clock.Local{})
	require.NoError(t, err)
	q, err := queuelock.New(s, &queuelock.Options{ProcessID: "p", Fencing: g1, Evidence: queuelock.EvidenceRecord})
	require.NoError(t, err)
	defer q.Close(ctx)
	g, err := shadowlock.New(s, &shadowlock.Options{ProcessID: "p"})
	require.NoError(t, err)
	defer g.Close(ctx)

	_, err = Compose(q, g, &ComposeOptions{Fencing: g2})
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	require.ErrorContains(t, err, "pass that same clock.Global")

	c, err := Compose(q, g, &ComposeOptions{Fencing: g1})
	require.NoError(t, err)
	lk, err := c.Lock(ctx, "x")
	require.NoError(t, err)
	token := lk.(lockstep.Fenced).Token()
	require.NoError(t, lk.Unlock(ctx))
	cells, err := s.Read(ctx, queuelock.DefaultTable, "x", lockstep.Slice{})
	require.NoError(t, err)
	var recorded int64
	for _, cl := range cells {
		if cl.Column == layout.EvidenceColumn {
			recorded = cl.Timestamp
		}
	}
	require.Equal(t, token, recorded, "the queue Locker's release records the combined token")
}
