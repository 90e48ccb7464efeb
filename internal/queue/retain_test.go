package queue

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// TestQueueLock_RetainedLockIsRelockedInMemoryAndYieldsToAnotherProcess:
// with Retain, a Lock right after an Unlock of the same Locker gets the
// same store hold (owner cell) with the block's next token and no lock-
// table request; a Lock of another Locker on the id is seen by the
// retained hold's look (once per Renew) and gets the id within a Renew
// and the look's read.
func TestQueueLock_RetainedLockIsRelockedInMemoryAndYieldsToAnotherProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &clock.Local{}
		ms := model.New(clk)
		g, err := clock.NewGlobal(ms, "", clk)
		require.NoError(t, err)
		cs := &countingStore{Store: ms}
		const renew = time.Second
		l, err := New(cs, &Options{Clock: clk, ProcessID: "p", Fencing: g, LocalHandoff: 4, Retain: time.Minute, TTL: 10 * renew, Renew: renew})
		require.NoError(t, err)
		defer func() { require.NoError(t, l.Close(context.Background())) }()
		other, err := New(ms, &Options{Clock: clk, ProcessID: "q", Fencing: g, TTL: 10 * renew, Renew: renew})
		require.NoError(t, err)
		defer func() { require.NoError(t, other.Close(context.Background())) }()
		ctx := context.Background()
		a, err := l.Lock(ctx, "x")
		require.NoError(t, err)
		require.NoError(t, a.Unlock(ctx))
		synctest.Wait()
		before := cs.n.Load()
		b, err := l.Lock(ctx, "x")
		require.NoError(t, err)
		require.Equal(t, before, cs.n.Load(), "the relock sent nothing to the lock table")
		require.Equal(t, a.Owner(), b.Owner())
		require.Equal(t, a.(lockstep.Fenced).Token()+1, b.(lockstep.Fenced).Token())
		require.NoError(t, b.Unlock(ctx))
		synctest.Wait()
		start := time.Now()
		c, err := other.Lock(ctx, "x")
		require.NoError(t, err)
		require.Less(t, time.Since(start), renew+time.Second, "the other process waited at most a look's period and a poll, not the window")
		require.Greater(t, c.(lockstep.Fenced).Token(), b.(lockstep.Fenced).Token())
		require.NoError(t, c.Unlock(ctx))
	})
}

func TestQueueLock_RetainRefusals(t *testing.T) {
	s := model.New(&clock.Local{})
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"negative", Options{LocalHandoff: 1, Retain: -time.Millisecond}},
		{"without local handoff", Options{Retain: time.Millisecond}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(s, &c.o)
			var ce *lockstep.ConfigError
			require.True(t, errors.As(err, &ce), "got %v", err)
			require.Equal(t, "Retain", ce.Field)
		})
	}
	_, err := NewWith(s, &Options{Retain: time.Millisecond, LocalHandoff: 1}, settings(t, "p"), nil)
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig, "a composer's queue part takes no Retain")
}
