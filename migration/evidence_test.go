package migration

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// The fencing conformance suite through migration Lockers whose queue
// Locker uses evidence (docs/algorithms.md, section 5.3): in mode new the
// tokens are drawn beside the claims; in mode combined the queue half
// records each combined token.
func TestMigration_FencingWithEvidence(t *testing.T) {
	for _, mode := range []lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew} {
		t.Run(mode.String(), func(t *testing.T) {
			env := fencingEnv(mode, lockstep.ModeCombined, lockstep.ModeNew)
			env.DrawBeside = mode == lockstep.ModeNew // a combined lock draws after both halves
			newLocker := env.NewLocker
			env.NewLocker = func(t *testing.T, s lockstep.Store, tm locktest.Timing, g *clock.Global) locktest.Locker {
				if g == nil { // evidence records fencing tokens: none without them
					return newLocker(t, s, tm, g)
				}
				l, err := New(s, flagOf(mode), &Options{Clock: tm.Clock, ProcessID: fmt.Sprintf("e%d", rand.Uint64()),
					Queue:     &queuelock.Options{TTL: tm.TTL, Renew: tm.Renew, Poll: 10e6, Evidence: queuelock.EvidenceUse},
					Legacy:    &shadowlock.Options{TTL: tm.TTL, Renew: tm.Renew},
					Fencing:   g,
					CensusTTL: testCensusTTL, Host: "testhost", Version: "v-test", PhaseCache: 100e6,
				})
				require.NoError(t, err)
				return l
			}
			locktest.RunFencing(t, env)
		})
	}
}

// combinedThenNew sets up the schedule evidence exists for, across modes:
// B, a Locker in mode new at EvidenceUse, sends its claim, and its draw
// reads the global cell; before B's claim goes on, A, a Locker in mode
// combined, takes the lock (both halves, then its token), and releases
// it; then B's claim wins. It returns A's token and B's; ka plants defects
// in A's queue Locker.
func combinedThenNew(t *testing.T, ka *queuelock.TestingKnobs) (tokenA, tokenB int64) {
	t.Helper()
	ctx := context.Background()
	base := newStore()
	setPhase(t, newController(t, base, 0), lockstep.ModeCombined, lockstep.ModeNew)
	gA, err := clock.NewGlobal(base, "", &clock.Local{})
	require.NoError(t, err)
	gated := locktest.NewPutGate(base, queuelock.DefaultTable, clock.DefaultGlobalTable)
	gB, err := clock.NewGlobal(gated, "", &clock.Local{})
	require.NoError(t, err)
	// The global cell already holds a value, so B's read of it returns
	// something A's later draw is above.
	_, err = gA.Next(ctx)
	require.NoError(t, err)

	opts := func(process string, g *clock.Global, k *queuelock.TestingKnobs) *Options {
		o := withIdentity(testOptions(uint64(len(process))), &clock.Local{}, process)
		q := *o.Queue
		q.Evidence, q.TestingKnobs = queuelock.EvidenceUse, k
		o.Queue, o.Fencing = &q, g
		return o
	}
	lA, err := New(base, flagOf(lockstep.ModeCombined), opts("a", gA, ka))
	require.NoError(t, err)
	defer lA.Close(ctx)
	lB, err := New(gated, flagOf(lockstep.ModeNew), opts("b", gB, nil))
	require.NoError(t, err)
	defer lB.Close(ctx)
	// B's admission is settled (its census entry written) before the gate
	// shuts, so only its claim and its draw wait behind it.
	warm, err := lB.Lock(ctx, "warm-up")
	require.NoError(t, err)
	require.NoError(t, warm.Unlock(ctx))

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
	if err := gated.AwaitBlocked(10*time.Second, queuelock.DefaultTable, clock.DefaultGlobalTable); err != nil {
		t.Fatalf("B's claim and draw did not both reach the store: %v", err)
	}
	lkA, err := lA.Lock(ctx, "hot")
	require.NoError(t, err)
	require.Equal(t, lockstep.ModeCombined, lkA.Mode(), "A holds in mode combined")
	tokenA = lkA.(lockstep.Fenced).Token()
	require.NoError(t, lkA.Unlock(ctx))

	gated.Reopen()
	r := <-done
	require.NoError(t, r.err)
	defer r.lk.Unlock(ctx)
	require.Equal(t, lockstep.ModeNew, r.lk.Mode(), "B holds in mode new")
	return tokenA, r.lk.(lockstep.Fenced).Token()
}

// A combined lock's queue half records the combined token, so a lock of
// mode new whose draw beside its claim read the global cell before A drew
// sees A's token in its winning read and draws again: its token is above
// A's. With A's records planted away, B keeps the token drawn before A's,
// which a fenced resource would take for a stale holder.
func TestEvidence_ANewLockAfterACombinedHolderDrawsAgain(t *testing.T) {
	a, b := combinedThenNew(t, nil)
	require.Greater(t, b, a, "B owned after A: its token must be larger")

	a, b = combinedThenNew(t, &queuelock.TestingKnobs{RecordNoEvidence: true})
	require.Less(t, b, a, "planted RecordNoEvidence: A's release leaves no evidence for B to see")
}

// Options.Queue.Evidence without Fencing is refused, says what to do, and
// writes nothing.
func TestNew_RefusesEvidenceWithoutFencing(t *testing.T) {
	s := newStore()
	o := withIdentity(testOptions(1), nil, "p")
	o.Queue.Evidence = queuelock.EvidenceRecord
	_, err := New(s, flagOf(lockstep.ModeNew), o)
	require.True(t, errors.Is(err, lockstep.ErrInvalidConfig), "New = %v", err)
	require.ErrorContains(t, err, "set Options.Fencing, or leave Queue.Evidence off")
	if st := s.Stats(); st.Puts+st.Deletes+st.Reads != 0 {
		t.Fatalf("refused options touched the store: %+v", st)
	}
}
