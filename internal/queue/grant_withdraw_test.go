package queue

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// heldBack is a wake-up transport whose sends are kept back while on, for
// the test to deliver later: a datagram delayed in the network.
type heldBack struct {
	memTransport
	on   *atomic.Bool
	mu   *sync.Mutex
	kept *[][]byte
}

func (t heldBack) Send(addr string, b []byte) error {
	if t.on.Load() {
		t.mu.Lock()
		*t.kept = append(*t.kept, b)
		t.mu.Unlock()
		return nil
	}
	return t.memTransport.Send(addr, b)
}

// lagging is a clock whose wall time runs lag µs behind: a process that
// names its queue cell in front of a waiter it has not seen.
type lagging struct {
	*clock.Local
	lag *atomic.Int64
}

func (c lagging) Now() int64 { return c.Local.Now() - c.lag.Load() }

// A waiter that counted a handed cell as its own and then gave its claim up
// (its token draw failed) has tombstoned its handed column above every
// timestamp a handoff naming it carried so far: a grant naming one of those
// writes that arrives afterwards (delayed in the network) grants a lock
// whose handed cell is dead. R hands the lock to W, its grant held back; W's
// poll finds the handed cell, its claim counts it, its draw fails and it
// withdraws; Z, whose clock lags 200ms or so (within MaxClockSkew), queues
// in front of W and holds; then R's grant arrives. W must not hold on it.
func TestGrant_NotTakenAfterOurTombstoneOfTheHandedColumn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		n := &memNet{handlers: map[string]func([]byte){}}
		var back atomic.Bool
		var mu sync.Mutex
		var kept [][]byte
		var lag atomic.Int64
		mk := func(name string, o Options) *testLocker {
			o.TTL, o.Renew, o.Poll, o.SlowPoll, o.ProcessID, o.Handoff = ttl, time.Second, wakePoll, 2*time.Second, name, true
			if o.Wake == nil {
				o.Wake = &Wake{Transport: memTransport{n, name}, Key: wakeKey}
			}
			l, err := New(s, &o)
			require.NoError(t, err)
			t.Cleanup(func() { _ = l.Close(ctx) })
			return l
		}
		down := &failing{Store: s, failPut: func([]lockstep.Cell) bool { return true }, failDelete: func([]string) bool { return true }}
		tokens, err := clock.NewGlobal(down, "", &clock.Local{})
		require.NoError(t, err)
		a := mk("a", Options{})
		r := mk("r", Options{Wake: &Wake{Transport: heldBack{memTransport{n, "r"}, &back, &mu, &kept}, Key: wakeKey}})
		w := mk("w", Options{Fencing: tokens})
		z := mk("z", Options{Clock: lagging{&clock.Local{}, &lag}})

		la, err := a.Lock(ctx, "x")
		require.NoError(t, err)
		gotR, gotW := make(chan lockstep.Lock, 1), make(chan lockstep.Lock, 1)
		go func() {
			l, err := r.Lock(ctx, "x")
			require.NoError(t, err)
			gotR <- l
		}()
		time.Sleep(10 * time.Millisecond)
		wQueued := time.Now()
		go func() {
			l, err := w.Lock(ctx, "x")
			require.NoError(t, err)
			gotW <- l
		}()
		time.Sleep(10 * time.Millisecond)
		require.NoError(t, la.Unlock(ctx))
		lr := <-gotR // its claim read saw W right behind it
		time.Sleep(7 * time.Millisecond)
		back.Store(true)
		down.on.Store(true)
		require.NoError(t, lr.Unlock(ctx)) // a grant, held back
		require.Len(t, kept, 1)
		for i := 0; len(cells(t, s, "x")) > 1; i++ { // until W withdrew its claim and handed cell
			require.Less(t, i, 2000, "W did not withdraw: %v", cells(t, s, "x"))
			time.Sleep(time.Millisecond)
		}
		lag.Store(time.Since(wQueued).Microseconds() + 5000) // Z names its queue cell 5ms in front of W's
		require.Less(t, lag.Load(), DefaultMaxClockSkew.Microseconds())
		zctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		lz, err := z.Lock(zctx, "x")
		cancel()
		require.NoError(t, err, "Z did not hold in front of W: %v", cells(t, s, "x"))
		down.on.Store(false)
		n.mu.Lock()
		deliver := n.handlers["w"]
		n.mu.Unlock()
		deliver(kept[0])
		time.Sleep(300 * time.Millisecond) // W's next look, after its pause
		select {
		case <-gotW:
			t.Fatalf("W held on R's late grant while Z holds: %v", cells(t, s, "x"))
		default:
		}
		require.NoError(t, lz.Unlock(ctx))
		require.NoError(t, (<-gotW).Unlock(ctx))
	})
}
