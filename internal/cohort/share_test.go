package cohort

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/model"
)

// sharingStore is the fake inner algorithm with a Sharer: it records the
// holds it was given, and refuses while refuse is set.
type sharingStore struct {
	*store
	refuse error
	got    map[*held.Lock]held.Part
}

func (s *sharingStore) ShareHolds(lk lockstep.Lock, holds map[*held.Lock]held.Part) (string, error) {
	if s.refuse != nil {
		return "", s.refuse
	}
	s.got = holds
	return "token of " + lk.ID(), nil
}

// newSharingFixture is newFixture over a sharingStore, with k planted.
func newSharingFixture(t *testing.T, k *TestingKnobs) (*fixture, *sharingStore) {
	t.Helper()
	clk := &clock.Local{}
	g, err := clock.NewGlobal(model.New(clk), "", clk)
	require.NoError(t, err)
	s := &sharingStore{store: newStore(g)}
	c, err := New(s, Options{Bound: 4, Clock: clk, TestingKnobs: k})
	require.NoError(t, err)
	m, err := manager.NewLocker(c, manager.Config{Name: "test", Mode: lockstep.ModeNew, Clock: clk, Observer: lockstep.NopObserver{}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, m.Close(context.Background())) })
	return &fixture{s: s.store, c: c, m: m, g: g}, s
}

// TestShare_ASharedGrantIsReleasedInTheStoreAndTheLineTakesItFromThere:
// Share hands the inner algorithm the store hold's part in the grant's
// place; the shared grant's Unlock releases the hold in the store, and the
// waiter behind it takes the id from the store (a second take).
func TestShare_ASharedGrantIsReleasedInTheStoreAndTheLineTakesItFromThere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, s := newSharingFixture(t, nil)
		ctx := context.Background()
		a, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		tok, err := f.m.Share(a)
		require.NoError(t, err)
		require.Equal(t, "token of x", tok)
		h := held.Of(a)
		require.IsType(t, &fakePart{}, s.got[h], "the store hold's part, in the grant's place")
		bc := f.lockAsync(ctx, "x")
		require.NoError(t, a.Unlock(ctx))
		b := <-bc
		require.NoError(t, b.err)
		takes, releases := f.s.counts()
		require.Equal(t, 2, takes, "the waiter took the id from the store")
		require.Equal(t, 1, releases, "the shared grant's hold was released in the store")
		require.NotEqual(t, a.Owner(), b.l.Owner())
		require.NoError(t, b.l.Unlock(ctx))
	})
}

// TestShare_RefusalsChangeNothing: an inner algorithm's refusal takes the
// mark back (the grant is still handed on in memory), a grant whose
// Unlock ran is refused with ErrReleased, and an inner algorithm that
// cannot share is refused with ErrIncompatibleMode.
func TestShare_RefusalsChangeNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, s := newSharingFixture(t, nil)
		ctx := context.Background()
		a, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		s.refuse = errors.New("inner: no")
		_, err = f.m.Share(a)
		require.ErrorContains(t, err, "inner: no")
		s.refuse = nil
		bc := f.lockAsync(ctx, "x")
		require.NoError(t, a.Unlock(ctx))
		b := <-bc
		require.NoError(t, b.err)
		takes, _ := f.s.counts()
		require.Equal(t, 1, takes, "the refused Share left the grant to be handed on")
		_, err = f.m.Share(a)
		require.ErrorIs(t, err, lockstep.ErrReleased)
		require.ErrorContains(t, err, "share a lock while it is held")
		require.NoError(t, b.l.Unlock(ctx))

		plain := newFixture(t, 4, nil)
		c, err := plain.m.Lock(ctx, "y")
		require.NoError(t, err)
		_, err = plain.m.Share(c)
		require.ErrorIs(t, err, lockstep.ErrIncompatibleMode)
		require.NoError(t, c.Unlock(ctx))
	})
}

// The planted HandOnShared hands a shared grant's hold to the waiter in
// memory: one take, where the shipped layer makes two.
func TestShare_PlantedHandOnSharedHandsItOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, _ := newSharingFixture(t, &TestingKnobs{HandOnShared: true})
		ctx := context.Background()
		a, err := f.m.Lock(ctx, "x")
		require.NoError(t, err)
		_, err = f.m.Share(a)
		require.NoError(t, err)
		bc := f.lockAsync(ctx, "x")
		require.NoError(t, a.Unlock(ctx))
		b := <-bc
		require.NoError(t, b.err)
		takes, _ := f.s.counts()
		require.Equal(t, 1, takes, "planted: handed on in memory though shared")
		require.NoError(t, b.l.Unlock(ctx))
	})
}
