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

// crossedUnits runs two units of work of two processes on one store, each
// holding its first id and then waiting for the other's, with the comments
// given; it returns the victim's DeadlockError. opts adapts each process's
// options; take takes an id for a unit (its handle is kept in held).
func crossedUnits(t *testing.T, store lockstep.Store, comments [2]string, opts func(*queuelock.Options),
	first [2]string, second [2]string) (*lockstep.DeadlockError, [2]lockstep.Lock) {
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
	type unit struct{ n int }
	for i := range 2 {
		uctx := lockstep.WithComment(lockstep.WithReentrancy(ctx, &unit{i}), comments[i])
		l, err := lks[i].Lock(uctx, first[i])
		require.NoError(t, err)
		held[i] = l
		go func() {
			l2, err := lks[i].Lock(uctx, second[i])
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

// A comment that is not UTF-8 comes back in every member of the cycle
// byte for byte, the victim's own among them.
func TestDeadlock_CommentsComeBackByteForByte(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := model.New(&clock.Local{})
		comments := [2]string{"ok\xff\xfe", "\xc3(p2)"}
		de, _ := crossedUnits(t, store, comments, nil, [2]string{"a", "b"}, [2]string{"b", "a"})
		require.Len(t, de.Cycle, 2)
		got := map[string]string{}
		for _, m := range de.Cycle {
			got[m.Process] = m.Comment
		}
		assert.Equal(t, map[string]string{"p1": comments[0], "p2": comments[1]}, got)
	})
}
