package queue

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/wakeup"
)

var wakeKey = bytes.Repeat([]byte{42}, wakeup.MinKeyBytes)

// memNet is an in-memory wake-up network; lose drops every datagram.
type memNet struct {
	mu       sync.Mutex
	handlers map[string]func([]byte)
	lose     bool
	sent     int
}

type memTransport struct {
	n    *memNet
	addr string
}

func (t memTransport) Addr() string { return t.addr }
func (t memTransport) Send(addr string, b []byte) error {
	t.n.mu.Lock()
	h, lose := t.n.handlers[addr], t.n.lose
	t.n.sent++
	t.n.mu.Unlock()
	if h != nil && !lose {
		h(b)
	}
	return nil
}
func (t memTransport) Handle(f func([]byte)) {
	t.n.mu.Lock()
	t.n.handlers[t.addr] = f
	t.n.mu.Unlock()
}

const wakePoll = 200 * time.Millisecond

func newWakeLocker(t *testing.T, s lockstep.Store, n *memNet, name string) *testLocker {
	t.Helper()
	l, err := New(s, &Options{TTL: ttl, Renew: time.Second, Poll: wakePoll, SlowPoll: 2 * time.Second, ProcessID: name,
		Wake: &Wake{Transport: memTransport{n, name}, Key: wakeKey}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// handoff has a hold A, then B and C wait; A releases (B, unknown to A's
// claim, notices by polling), B holds and releases: it returns how long
// after B's release C held the lock.
func handoff(t *testing.T, n *memNet) time.Duration {
	s := model.New(&clock.Local{})
	a, b, c := newWakeLocker(t, s, n, "a"), newWakeLocker(t, s, n, "b"), newWakeLocker(t, s, n, "c")
	ctx := context.Background()
	la, err := a.Lock(ctx, "x")
	require.NoError(t, err)
	gotB, gotC := make(chan lockstep.Lock, 1), make(chan time.Time, 1)
	go func() {
		lb, err := b.Lock(ctx, "x")
		require.NoError(t, err)
		gotB <- lb
	}()
	time.Sleep(10 * time.Millisecond)
	go func() {
		lc, err := c.Lock(ctx, "x")
		require.NoError(t, err)
		gotC <- time.Now()
		require.NoError(t, lc.Unlock(ctx))
	}()
	time.Sleep(time.Second)
	require.NoError(t, la.Unlock(ctx))
	lb := <-gotB
	time.Sleep(time.Second) // C, behind B, now only polls slowly
	released := time.Now()
	require.NoError(t, lb.Unlock(ctx))
	return (<-gotC).Sub(released)
}

func TestQueueLock_WakeUpEndsTheNextWaitersPollAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memNet{handlers: map[string]func([]byte){}}
		require.Zero(t, handoff(t, n), "woken at the release, C reads and claims at once (the model store answers instantly)")
		require.NotZero(t, n.sent)
	})
}

func TestQueueLock_LostWakeUpDelaysByAtMostThePoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memNet{handlers: map[string]func([]byte){}, lose: true}
		d := handoff(t, n)
		require.Positive(t, d)
		require.LessOrEqual(t, d, wakePoll, "C, next in line, still polls every Poll")
	})
}

func TestWaker_DropsForgedStaleAndMisdirectedWakeUps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memNet{handlers: map[string]func([]byte){}}
		l := newWakeLocker(t, model.New(&clock.Local{}), n, "a")
		col := layout.QueueColumn(1, "a:1")
		l.wake.register(col, "x")
		woken := func() bool {
			l.wake.mu.Lock()
			defer l.wake.mu.Unlock()
			return l.wake.slots[col].woken
		}
		good := wakeup.Message{Table: DefaultTable, ID: "x", To: col, Sender: "b", Sent: l.cfg.Clock.Now()}
		send := func(key []byte, m wakeup.Message) {
			b, err := wakeup.Seal(key, m)
			require.NoError(t, err)
			l.wake.handle(b)
		}
		send(bytes.Repeat([]byte{1}, wakeup.MinKeyBytes), good) // another key: forged
		require.False(t, woken())
		stale := good
		stale.Sent -= 2 * ttl.Microseconds()
		send(wakeKey, stale)
		require.False(t, woken())
		other := good
		other.ID = "y"
		send(wakeKey, other)
		require.False(t, woken())
		send(wakeKey, good)
		require.True(t, woken())
	})
}

func TestWaker_RateLimitsASender(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memNet{handlers: map[string]func([]byte){}}
		l := newWakeLocker(t, model.New(&clock.Local{}), n, "a")
		now := l.cfg.Clock.Elapsed()
		allowed := 0
		l.wake.mu.Lock()
		for range 10 * senderBurst {
			if l.wake.allow("flood", now) {
				allowed++
			}
		}
		l.wake.mu.Unlock()
		require.Equal(t, senderBurst, allowed)
	})
}

func TestOptions_WakeNeedsTransportAndKey(t *testing.T) {
	s := model.New(&clock.Local{})
	_, err := New(s, &Options{Wake: &Wake{Key: wakeKey}})
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	require.ErrorContains(t, err, "Wake.Transport")
	_, err = New(s, &Options{Wake: &Wake{Transport: memTransport{&memNet{handlers: map[string]func([]byte){}}, "a"}, Key: []byte("short")}})
	require.ErrorContains(t, err, "Wake.Key")
	_, err = New(s, &Options{Poll: time.Second, SlowPoll: time.Millisecond})
	require.ErrorContains(t, err, "SlowPoll")
}
