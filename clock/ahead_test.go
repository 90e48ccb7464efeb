package clock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// A draw ahead gives the caller its n values, keeps extra more for
// TakeAhead, and writes the last of all of them, so every later draw of any
// process is above each. Drawn counts the caller's values at once and the
// kept ones only as they are handed out.
func TestGlobal_ReserveAheadKeepsValuesThatDrawnCountsOnlyWhenHandedOut(t *testing.T) {
	base := model.NewManualClock(0)
	base.Advance(time.Second)
	store := model.New(base)
	g := newGlobal(t, store, base)
	other := newGlobal(t, store, clock.Offset{Base: base, By: -time.Minute})
	ctx := t.Context()

	v, err := g.ReserveAhead(ctx, 2, 3)
	require.NoError(t, err)
	require.Equal(t, v+4, readGlobal(t, g), "the cell holds the last value drawn, kept ones included")
	require.Equal(t, v+1, g.Drawn(), "Drawn counts the caller's two values, not the kept ones")

	base.Advance(3 * time.Millisecond)
	first, age, ok := g.TakeAhead(1, time.Second)
	require.True(t, ok)
	require.Equal(t, v+2, first)
	require.Equal(t, 3*time.Millisecond, age, "how long ago the draw's read was sent")
	require.Equal(t, v+2, g.Drawn())

	first, _, ok = g.TakeAhead(2, time.Second)
	require.True(t, ok)
	require.Equal(t, v+3, first)
	require.Equal(t, v+4, g.Drawn())

	_, _, ok = g.TakeAhead(1, time.Second)
	require.False(t, ok, "nothing is left")

	w, err := other.Next(ctx)
	require.NoError(t, err)
	require.Greater(t, w, v+4, "a later draw of a process whose clock lags is above every value drawn ahead")
}

// TakeAhead hands out nothing when the draw ahead's read was sent maxAge or
// more ago, when fewer values are left than asked, or when a later draw of
// the same Global passed the values left; nothing it refuses moves Drawn.
func TestGlobal_TakeAheadRefusals(t *testing.T) {
	ctx := t.Context()
	setup := func(t *testing.T) (*model.ManualClock, *clock.Global, int64) {
		base := model.NewManualClock(0)
		base.Advance(time.Second)
		g := newGlobal(t, model.New(base), base)
		v, err := g.ReserveAhead(ctx, 1, 4)
		require.NoError(t, err)
		return base, g, v
	}
	t.Run("too old", func(t *testing.T) {
		base, g, v := setup(t)
		base.Advance(500 * time.Millisecond)
		_, _, ok := g.TakeAhead(1, 500*time.Millisecond)
		require.False(t, ok)
		require.Equal(t, v, g.Drawn())
		first, _, ok := g.TakeAhead(1, 501*time.Millisecond)
		require.True(t, ok, "just younger than maxAge")
		require.Equal(t, v+1, first)
	})
	t.Run("too few", func(t *testing.T) {
		_, g, v := setup(t)
		_, _, ok := g.TakeAhead(5, time.Second)
		require.False(t, ok)
		require.Equal(t, v, g.Drawn())
		_, _, ok = g.TakeAhead(0, time.Second)
		require.False(t, ok)
	})
	t.Run("passed by a later draw", func(t *testing.T) {
		_, g, _ := setup(t)
		w, err := g.Next(ctx)
		require.NoError(t, err)
		_, _, ok := g.TakeAhead(1, time.Second)
		require.False(t, ok, "values below Drawn would never be above the evidence this process records")
		require.Equal(t, w, g.Drawn())
	})
	t.Run("a newer draw ahead replaces the values left", func(t *testing.T) {
		base, g, _ := setup(t)
		base.Advance(time.Millisecond)
		u, err := g.ReserveAhead(ctx, 1, 2)
		require.NoError(t, err)
		first, age, ok := g.TakeAhead(1, time.Second)
		require.True(t, ok)
		require.Equal(t, u+1, first)
		require.Zero(t, age)
	})
}

// ReserveAhead refuses n below 1 and extra below 0, saying what it wants,
// and sends nothing.
func TestGlobal_ReserveAheadRefusals(t *testing.T) {
	base := model.NewManualClock(0)
	g := newGlobal(t, model.New(base), base)
	for _, c := range []struct{ n, extra int }{{0, 1}, {1, -1}} {
		_, err := g.ReserveAhead(t.Context(), c.n, c.extra)
		require.ErrorContains(t, err, "want at least")
	}
	require.Zero(t, readGlobal(t, g), "nothing was written")
	require.Zero(t, g.Drawn())
}
