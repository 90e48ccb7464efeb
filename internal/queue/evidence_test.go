package queue

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/internal/setup"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/model"
)

// The fencing conformance suite, with every Locker drawing its tokens
// beside its claims (Options.Evidence).
func TestQueueLock_FencingWithEvidence(t *testing.T) {
	env := fencingEnv
	env.DrawBeside = true
	env.NewLocker = func(t *testing.T, s lockstep.Store, tm locktest.Timing, g *clock.Global) locktest.Locker {
		e := EvidenceUse
		if g == nil {
			e = EvidenceOff // evidence records fencing tokens: none without them
		}
		l, err := New(s, &Options{TTL: tm.TTL, Renew: tm.Renew, Clock: tm.Clock, Poll: 10 * time.Millisecond, Fencing: g, Evidence: e})
		require.NoError(t, err)
		return l
	}
	locktest.RunFencing(t, env)
}

// evidenceRace sets up the one schedule evidence exists for (section 5.3):
// B's token draw, sent beside B's claim, reads the global cell before A
// claims; A claims, draws, holds and releases; only then do B's claim and
// the rest of its draw go on, and B's claim wins. It returns A's token and
// B's. a and b are A's and B's Options.Evidence and planted defects.
func evidenceRace(t *testing.T, a, b Evidence, ka, kb *TestingKnobs) (tokenA, tokenB int64) {
	t.Helper()
	ctx := context.Background()
	base := model.New(&clock.Local{})
	gA, err := clock.NewGlobal(base, "", &clock.Local{})
	require.NoError(t, err)
	gated := locktest.NewPutGate(base, DefaultTable, clock.DefaultGlobalTable)
	gB, err := clock.NewGlobal(gated, "", &clock.Local{})
	require.NoError(t, err)
	// The global cell already holds a value, so B's read of it returns
	// something A's later draw is above.
	_, err = gA.Next(ctx)
	require.NoError(t, err)

	lA, err := New(base, &Options{ProcessID: "a", Fencing: gA, Evidence: a, TestingKnobs: ka})
	require.NoError(t, err)
	defer lA.Close(ctx)
	lB, err := New(gated, &Options{ProcessID: "b", Fencing: gB, Evidence: b, TestingKnobs: kb})
	require.NoError(t, err)
	defer lB.Close(ctx)

	// Every Put of B waits: its claim's and its draw's, whose read of the
	// global cell has then been served, before A claims.
	gated.Shut()
	type result struct {
		lk  lockstep.Lock
		err error
	}
	done := make(chan result, 1)
	go func() {
		lk, err := lB.Lock(ctx, "hot")
		done <- result{lk, err}
	}()
	if err := gated.AwaitBlocked(10*time.Second, DefaultTable, clock.DefaultGlobalTable); err != nil {
		t.Fatalf("B's claim and draw did not both reach the store: %v", err)
	}

	lkA, err := lA.Lock(ctx, "hot")
	require.NoError(t, err)
	tokenA = lkA.(lockstep.Fenced).Token()
	require.NoError(t, lkA.Unlock(ctx))

	gated.Reopen()
	r := <-done
	require.NoError(t, r.err)
	defer r.lk.Unlock(ctx)
	return tokenA, r.lk.(lockstep.Fenced).Token()
}

// With evidence, B's claim read shows A's token, above the value B's draw
// read before A drew: B draws again after its claim, and its token is above
// A's. Each planted defect gives B a token below A's, which is what a fenced
// resource would take for a stale holder.
func TestEvidence_AClaimWhoseDrawWasServedBeforeTheLastHolderDrewDrawsAgain(t *testing.T) {
	a, b := evidenceRace(t, EvidenceUse, EvidenceUse, nil, nil)
	require.Greater(t, b, a, "B owned after A: its token must be larger")

	a, b = evidenceRace(t, EvidenceUse, EvidenceUse, nil, &TestingKnobs{KeepBelowEvidence: true})
	require.Less(t, b, a, "planted KeepBelowEvidence: B keeps the token drawn before A's")

	a, b = evidenceRace(t, EvidenceRecord, EvidenceUse, &TestingKnobs{RecordNoEvidence: true}, nil)
	require.Less(t, b, a, "planted RecordNoEvidence: A's release leaves no evidence for B to see")
}

// Each refusal of Options.Evidence says what to do and writes nothing.
func TestOptions_EvidenceRefusals(t *testing.T) {
	s := model.New(&clock.Local{})
	g, err := clock.NewGlobal(s, "", &clock.Local{})
	require.NoError(t, err)
	cases := map[string]struct {
		store lockstep.Store
		opts  *Options
		says  string
	}{
		"without fencing":   {s, &Options{Evidence: EvidenceRecord}, "needs Fencing"},
		"not a setting":     {s, &Options{Fencing: g, Evidence: EvidenceUse + 1}, "use EvidenceOff, EvidenceRecord or EvidenceUse"},
		"store without one": {plainStore{s}, &Options{Fencing: g, Evidence: EvidenceUse}, "lockstep.Mutator"},
	}
	for name, c := range cases {
		_, err := New(c.store, c.opts)
		require.ErrorIs(t, err, lockstep.ErrInvalidConfig, name)
		require.ErrorContains(t, err, c.says, name)
	}
	_, err = NewWith(s, &Options{Evidence: EvidenceRecord}, setup.Process{}, nil)
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig, "a composer's queue half without the process's Fencing")
	require.ErrorContains(t, err, "needs Fencing")
	if st := s.Stats(); st.Puts+st.Deletes+st.Reads != 0 {
		t.Fatalf("refused options touched the store: %+v", st)
	}
}

// A recording Locker's release writes the evidence cell with its token, in
// the request that deletes its cells; one that records nothing writes none.
func TestEvidence_AReleaseRecordsItsToken(t *testing.T) {
	ctx := context.Background()
	for _, e := range []Evidence{EvidenceOff, EvidenceRecord, EvidenceUse} {
		s := model.New(&clock.Local{})
		g, err := clock.NewGlobal(s, "", &clock.Local{})
		require.NoError(t, err)
		l, err := New(s, &Options{Fencing: g, Evidence: e})
		require.NoError(t, err)
		lk, err := l.Lock(ctx, "x")
		require.NoError(t, err)
		token := lk.(lockstep.Fenced).Token()
		require.NoError(t, lk.Unlock(ctx))
		cells, err := s.Read(ctx, DefaultTable, "x", lockstep.Slice{})
		require.NoError(t, err)
		var recorded int64
		for _, c := range cells {
			if c.Column == layout.EvidenceColumn {
				recorded, err = layout.DecodeEvidence(c.Value)
				require.NoError(t, err)
				require.Equal(t, recorded, c.Timestamp, "%v: the evidence cell's timestamp is its token", e)
			}
		}
		if e == EvidenceOff {
			require.Zero(t, recorded, "EvidenceOff records nothing")
		} else {
			require.GreaterOrEqual(t, recorded, token, "%v: the release records its token", e)
			require.Len(t, cells, 1, "%v: only the evidence cell is left: %v", e, cells)
		}
		require.NoError(t, l.Close(ctx))
	}
}
