package migration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/queuelock"
)

// aheadAcrossARollback runs the schedule that admission bounds values
// drawn ahead for: B, in mode new at EvidenceUse, locks x, and its draw
// beside the claim reserves values ahead; the fleet rolls back to legacy,
// where A, a legacy Locker, locks x with a token drawn later, and releases
// it; the fleet moves forward to new again, and B locks x. B's values
// ahead are below A's token, and nothing of A's is in the queue partition
// for B's read to meet. B's Locker takes values however old
// (AheadPastWindow), so only the admission rule stands between them; kb
// plants more. It returns A's token and B's second.
func aheadAcrossARollback(t *testing.T, kb *TestingKnobs) (tokenA, tokenB int64) {
	t.Helper()
	ctx := context.Background()
	base := newStore()
	ctl := newController(t, base, 20*time.Second) // drains until B's census entry shows it idle
	setPhase(t, ctl, lockstep.ModeCombined, lockstep.ModeNew)
	opts := func(process string, k *TestingKnobs) *Options {
		o := withIdentity(testOptions(uint64(len(process))), &clock.Local{}, process)
		g, err := clock.NewGlobal(base, "", &clock.Local{})
		require.NoError(t, err)
		q := *o.Queue
		q.Evidence, q.TestingKnobs = queuelock.EvidenceUse, &queuelock.TestingKnobs{AheadPastWindow: true}
		o.Queue, o.Fencing, o.TestingKnobs = &q, g, k
		return o
	}
	flagB := flagOf(lockstep.ModeNew)
	lB, err := New(base, flagB, opts("b", kb))
	require.NoError(t, err)
	defer lB.Close(ctx)
	lk, err := lB.Lock(ctx, "x")
	require.NoError(t, err)
	require.NoError(t, lk.Unlock(ctx))

	flagB.set(lockstep.ModeCombined) // the rollback's first step forbids new
	setPhase(t, ctl, lockstep.ModeCombined, lockstep.ModeLegacy)
	lA, err := New(base, flagOf(lockstep.ModeLegacy), opts("a", nil))
	require.NoError(t, err)
	lk, err = lA.Lock(ctx, "x")
	require.NoError(t, err)
	require.Equal(t, lockstep.ModeLegacy, lk.Mode())
	tokenA = lk.(lockstep.Fenced).Token()
	require.NoError(t, lk.Unlock(ctx))
	require.NoError(t, lA.Close(ctx))

	setPhase(t, ctl, lockstep.ModeCombined, lockstep.ModeNew)
	flagB.set(lockstep.ModeNew)
	lk, err = lB.Lock(ctx, "x")
	require.NoError(t, err)
	require.Equal(t, lockstep.ModeNew, lk.Mode())
	tokenB = lk.(lockstep.Fenced).Token()
	require.NoError(t, lk.Unlock(ctx))
	return tokenA, tokenB
}

// A lock of mode new takes a token drawn ahead only if that draw's read was
// sent after the phase read that admitted it: drawn before a rollback, the
// values are below a legacy holder's token, which no evidence records.
// Planted (AheadBeforeAdmission), B keeps one of them.
func TestEvidence_ANewLockTakesNoTokenDrawnAheadBeforeItsAdmission(t *testing.T) {
	a, b := aheadAcrossARollback(t, nil)
	require.Greater(t, b, a, "B owned after A: its token must be larger")
	a, b = aheadAcrossARollback(t, &TestingKnobs{AheadBeforeAdmission: true})
	require.Less(t, b, a, "planted: B took a value drawn before the rollback")
}

// Within one admission (a cached phase read), a lock of mode new at
// EvidenceUse takes its token from values its last draw reserved ahead:
// the global cell does not move.
func TestEvidence_ANewLockTakesATokenDrawnAheadWithinItsAdmission(t *testing.T) {
	ctx := context.Background()
	base := newStore()
	setPhase(t, newController(t, base, 0), lockstep.ModeCombined, lockstep.ModeNew)
	g, err := clock.NewGlobal(base, "", &clock.Local{})
	require.NoError(t, err)
	o := withIdentity(testOptions(1), &clock.Local{}, "b")
	q := *o.Queue
	q.Evidence = queuelock.EvidenceUse
	o.Queue, o.Fencing, o.PhaseCache = &q, g, time.Minute
	l, err := New(base, flagOf(lockstep.ModeNew), o)
	require.NoError(t, err)
	defer l.Close(ctx)

	lk, err := l.Lock(ctx, "x")
	require.NoError(t, err)
	first := lk.(lockstep.Fenced).Token()
	require.NoError(t, lk.Unlock(ctx))
	cell, err := g.Read(ctx)
	require.NoError(t, err)
	require.Greater(t, cell, first, "the draw beside the first claim reserved values ahead")

	lk, err = l.Lock(ctx, "x")
	require.NoError(t, err)
	second := lk.(lockstep.Fenced).Token()
	require.NoError(t, lk.Unlock(ctx))
	require.Equal(t, first+1, second, "the next value drawn ahead")
	after, err := g.Read(ctx)
	require.NoError(t, err)
	require.Equal(t, cell, after, "no draw: the global cell did not move")
}
