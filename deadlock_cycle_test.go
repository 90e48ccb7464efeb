package lockstep_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// crossedUnits runs two units of work of two processes on one store: unit
// i takes its first lock with first[i], then waits for second[i], which
// the other holds, with comments[i]. It returns the victim's DeadlockError
// and the units' first handles, once the victim released and the other
// finished. opts adapts each process's options.
func crossedUnits(t *testing.T, store lockstep.Store, comments [2]string, opts func(*queuelock.Options),
	first [2]func(context.Context, lockstep.Unit) (lockstep.Lock, error), second [2]string) (*lockstep.DeadlockError, [2]lockstep.Lock) {
	t.Helper()
	ctx := context.Background()
	var held [2]lockstep.Lock
	errs := make(chan error, 2)
	victim := make(chan int, 2)
	proceed := make(chan struct{})
	lks := [2]*queuelock.Locker{}
	for i, p := range []string{"p1", "p2"} {
		o := &queuelock.Options{ProcessID: p, Deadlock: &lockstep.DeadlockDetection{}}
		if opts != nil {
			opts(o)
		}
		lk, err := queuelock.New(store, o)
		require.NoError(t, err)
		lks[i] = lk
	}
	var units [2]lockstep.Unit
	for i := range 2 { // both hold their first locks before either waits
		units[i] = lks[i].Unit(comments[i])
		l, err := first[i](ctx, units[i])
		require.NoError(t, err)
		held[i] = l
	}
	for i := range 2 {
		go func() {
			l2, err := units[i].Lock(ctx, second[i])
			if err != nil {
				victim <- i
			} else {
				<-proceed
				_ = l2.Unlock(ctx)
			}
			errs <- err
		}()
	}
	err := <-errs
	v := <-victim
	require.NoError(t, held[v].Unlock(ctx), "the victim's unit releases what it holds")
	close(proceed)
	require.NoError(t, <-errs, "the other proceeds")
	require.NoError(t, held[1-v].Unlock(ctx))
	for _, lk := range lks {
		require.NoError(t, lk.Close(ctx))
	}
	var de *lockstep.DeadlockError
	require.True(t, errors.As(err, &de), "%v", err)
	return de, held
}

// lockOf returns a first take of Lock(id).
func lockOf(id string) func(context.Context, lockstep.Unit) (lockstep.Lock, error) {
	return func(ctx context.Context, lk lockstep.Unit) (lockstep.Lock, error) { return lk.Lock(ctx, id) }
}

// A comment that is not UTF-8 comes back in every member of the cycle
// byte for byte, the victim's own among them.
func TestDeadlock_CommentsComeBackByteForByte(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := model.New(&clock.Local{})
		comments := [2]string{"ok\xff\xfe", "\xc3(p2)"}
		de, _ := crossedUnits(t, store, comments, nil, [2]func(context.Context, lockstep.Unit) (lockstep.Lock, error){lockOf("a"), lockOf("b")},
			[2]string{"b", "a"})
		require.Len(t, de.Cycle, 2)
		got := map[string]string{}
		for _, m := range de.Cycle {
			got[m.Process] = m.Comment
		}
		assert.Equal(t, map[string]string{"p1": comments[0], "p2": comments[1]}, got)
	})
}

// Each member of a cycle names, in HeldBy, the Owner() of the handle that
// holds the id it waits for: for a lock of one id, for a hierarchical id
// (whose handle's first member is its ancestor's intention lock) and for a
// group (whose handle's first member is another id).
func TestDeadlock_HeldByIsTheOwnerOfTheHoldersHandle(t *testing.T) {
	group := func(ids ...string) func(context.Context, lockstep.Unit) (lockstep.Lock, error) {
		return func(ctx context.Context, lk lockstep.Unit) (lockstep.Lock, error) {
			var rs []lockstep.Request
			for _, id := range ids {
				rs = append(rs, lockstep.Request{ID: id})
			}
			return lk.LockGroup(ctx, rs...)
		}
	}
	type take = func(context.Context, lockstep.Unit) (lockstep.Lock, error)
	for _, tc := range []struct {
		name   string
		sep    string
		first  [2]take
		second [2]string
	}{
		{"one id", "", [2]take{lockOf("a"), lockOf("b")}, [2]string{"b", "a"}},
		{"hierarchical", "/", [2]take{lockOf("r/a"), lockOf("r/b")}, [2]string{"r/b", "r/a"}},
		{"group", "", [2]take{group("y", "a"), group("z", "b")}, [2]string{"z", "y"}}, // canonical order: a, b first
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := model.New(&clock.Local{})
				de, held := crossedUnits(t, store, [2]string{"one", "two"},
					func(o *queuelock.Options) { o.Separator = tc.sep }, tc.first, tc.second)
				require.Len(t, de.Cycle, 2)
				for _, m := range de.Cycle {
					holder := 0 // the unit that holds what m waits for: the other one
					if m.Waits.ID == tc.second[0] {
						holder = 1
					}
					assert.Equal(t, held[holder].Owner(), m.HeldBy, "%s waits for %s", m.Process, m.Waits)
				}
			})
		})
	}
}
