package queue

import (
	"context"
	"fmt"
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

// wakeEvents records what a Locker reports about its wake-ups.
type wakeEvents struct {
	lockstep.NopObserver
	mu     sync.Mutex
	events []lockstep.WakeEvent
}

func (o *wakeEvents) ObserveWake(_ context.Context, e lockstep.WakeEvent) {
	o.mu.Lock()
	o.events = append(o.events, e)
	o.mu.Unlock()
}

func (o *wakeEvents) all() []lockstep.WakeEvent {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]lockstep.WakeEvent(nil), o.events...)
}

// contend runs n Lockers on one model store, each taking "x" rounds times,
// holding it hold each time, and returns how long that took (virtual time)
// and what each Locker's observer saw. With net nil the Lockers have no
// wake-ups; otherwise they send and receive them over net. Poll and SlowPoll
// are the defaults, so the cadences with and without wake-ups are the ones
// users get.
func contend(t *testing.T, net *memNet, n, rounds int, hold time.Duration) (time.Duration, []*wakeEvents) {
	t.Helper()
	s := model.New(&clock.Local{})
	ctx := context.Background()
	obs := make([]*wakeEvents, n)
	lockers := make([]*testLocker, n)
	for i := range n {
		obs[i] = &wakeEvents{}
		o := &Options{TTL: ttl, Renew: time.Second, ProcessID: fmt.Sprintf("p%d", i), Observer: obs[i]}
		if net != nil {
			o.Wake = &Wake{Transport: memTransport{net, o.ProcessID}, Key: wakeKey}
		}
		l, err := New(s, o)
		require.NoError(t, err)
		t.Cleanup(func() { _ = l.Close(ctx) })
		lockers[i] = l
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, l := range lockers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				h, err := l.Lock(ctx, "x")
				if err != nil {
					t.Error(err)
					return
				}
				time.Sleep(hold)
				if err := h.Unlock(ctx); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start), obs
}

// The target of wake-ups that cannot make things worse: with every wake-up
// lost (a blocked port), a line of five takes at most 1.1× as long as with
// wake-ups off, and each Locker that relied on them says they are blocked.
// Working wake-ups take no longer than none.
func TestQueueLock_LostWakeUpsCostNoMoreThanNone(t *testing.T) {
	const n, rounds, hold = 5, 8, 100 * time.Millisecond
	var off, lost, working time.Duration
	var lostObs []*wakeEvents
	synctest.Test(t, func(t *testing.T) { off, _ = contend(t, nil, n, rounds, hold) })
	synctest.Test(t, func(t *testing.T) {
		lost, lostObs = contend(t, &memNet{handlers: map[string]func([]byte){}, lose: true}, n, rounds, hold)
	})
	synctest.Test(t, func(t *testing.T) {
		working, _ = contend(t, &memNet{handlers: map[string]func([]byte){}}, n, rounds, hold)
	})
	t.Logf("%d Lockers × %d holds of %v: wake-ups off %v, all lost %v (%.2f×), working %v (%.2f×)",
		n, rounds, hold, off, lost, float64(lost)/float64(off), working, float64(working)/float64(off))
	for i, o := range lostObs {
		t.Logf("p%d: %+v", i, o.all())
	}
	require.LessOrEqual(t, float64(lost), 1.1*float64(off), "lost wake-ups made the line slower than none")
	require.LessOrEqual(t, working, off, "working wake-ups made the line slower than none")
	blocked := 0
	for _, o := range lostObs {
		for _, e := range o.all() {
			require.True(t, e.Blocked, "no wake-up arrived, yet a Locker reported them back: %+v", e)
			require.GreaterOrEqual(t, e.Missed, missesToBlock)
			blocked++
		}
	}
	require.Positive(t, blocked, "no Locker reported its wake-ups blocked")
}

// A Locker relies on wake-ups once one has arrived, stops after
// missesToBlock handoffs in a row came without theirs (and says so, once),
// and relies on them again as soon as one arrives (and says so).
func TestQueueLock_WakeUpsThatArriveAgainAreReliedOnAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memNet{handlers: map[string]func([]byte){}}
		l := newWakeLocker(t, model.New(&clock.Local{}), n, "a")
		obs := &wakeEvents{}
		l.cfg.Observer = obs
		col := layout.QueueColumn(1, "a:1")
		l.wake.register(col, "x")
		require.False(t, l.wakeHealth.reliedOn(), "relied on wake-ups before any arrived")
		wake := func(nonce uint64) {
			b, err := wakeup.Seal(wakeKey, wakeup.Message{Table: DefaultTable, ID: "x", To: col, Sender: "b", Sent: l.cfg.Clock.Now(), Nonce: nonce})
			require.NoError(t, err)
			l.wake.handle(b)
		}
		wake(6)
		require.True(t, l.wakeHealth.reliedOn(), "a wake-up arrived, yet the Locker does not rely on them")
		for range missesToBlock - 1 {
			l.wakeMissed("x")
		}
		require.True(t, l.wakeHealth.reliedOn(), "blocked before %d misses in a row", missesToBlock)
		l.wakeMissed("x")
		require.False(t, l.wakeHealth.reliedOn())
		l.wakeMissed("x") // reported once
		wake(7)
		require.True(t, l.wakeHealth.reliedOn(), "a wake-up arrived, yet the Locker still does not rely on them")
		require.Equal(t, []lockstep.WakeEvent{{Blocked: true, Missed: missesToBlock}, {Blocked: false}}, obs.all())
	})
}

// A sealed, fresh wake-up delivered again (a replay, or the network's
// duplicate) wakes no one a second time: without the replay window each
// copy cost its waiter a claim.
func TestWaker_ReplayedWakeUpWakesNoOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memNet{handlers: map[string]func([]byte){}}
		l := newWakeLocker(t, model.New(&clock.Local{}), n, "a")
		col := layout.QueueColumn(1, "a:1")
		l.wake.register(col, "x")
		woken := func() bool {
			l.wake.mu.Lock()
			defer l.wake.mu.Unlock()
			w := l.wake.slots[col].woken
			l.wake.slots[col].woken = false // a read consumed it
			return w
		}
		m := wakeup.Message{Table: DefaultTable, ID: "x", To: col, Sender: "b", Sent: l.cfg.Clock.Now(), Nonce: 11}
		b, err := wakeup.Seal(wakeKey, m)
		require.NoError(t, err)
		l.wake.handle(b)
		require.True(t, woken())
		l.wake.handle(b)
		require.False(t, woken(), "the replayed datagram woke the waiter again")
		m.Nonce++
		b, err = wakeup.Seal(wakeKey, m)
		require.NoError(t, err)
		l.wake.handle(b)
		require.True(t, woken(), "a new wake-up from the same sender was taken for a replay")
	})
}
