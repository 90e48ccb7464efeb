package queue

import (
	"context"
	"fmt"
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

// readCounter counts the reads of a Store.
type readCounter struct {
	lockstep.Store
	reads atomic.Int64
}

func (s *readCounter) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	s.reads.Add(1)
	return s.Store.Read(ctx, table, row, sl)
}

// readsPerAcquisition runs n Lockers, each taking one id k times and holding
// it 20ms (on a store answering after 1ms), and returns the store's reads
// per acquisition.
func readsPerAcquisition(t *testing.T, n int, opts Options) float64 {
	return readsPer(t, n, 5, opts, nil)
}

// readsPer runs n Lockers, each taking "hot" k times, and returns the store
// reads per acquisition.
func readsPer(t *testing.T, n, k int, opts Options, wake func(i int) *Wake) float64 {
	var perAcq float64
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		f, err := model.NewFaulty(model.New(c), model.FaultConfig{MinLatency: time.Millisecond, MaxLatency: time.Millisecond, Clock: c})
		require.NoError(t, err)
		s := &readCounter{Store: f}
		var wg sync.WaitGroup
		for i := range n {
			o := opts
			o.ProcessID = fmt.Sprintf("p%d", i)
			if wake != nil {
				o.Wake = wake(i)
			}
			l, err := New(s, &o)
			require.NoError(t, err)
			wg.Go(func() {
				defer l.Close(context.Background())
				for range k {
					h, err := l.Lock(context.Background(), "hot")
					require.NoError(t, err)
					time.Sleep(20 * time.Millisecond)
					require.NoError(t, h.Unlock(context.Background()))
				}
			})
		}
		wg.Wait()
		perAcq = float64(s.reads.Load()) / float64(n*k)
	})
	return perAcq
}

// Waiters further back read less often: with SlowPoll equal to Poll every
// waiter reads every Poll, and reads per acquisition grow with the crowd in
// proportion; paced (SlowPoll 4×Poll, the default), far less. Without
// wake-ups they still grow: the pacing's reach is kept short, since a
// waiter that sleeps past its turn stalls the line.
func TestQueueLock_ReadsPerAcquisitionGrowLessWithTheCrowd(t *testing.T) {
	base := Options{TTL: ttl, Renew: time.Second, Poll: 10 * time.Millisecond}
	flat := base
	flat.SlowPoll = base.Poll
	paced5, paced20 := readsPerAcquisition(t, 5, base), readsPerAcquisition(t, 20, base)
	flat20 := readsPerAcquisition(t, 20, flat)
	t.Logf("reads per acquisition: paced 5 → %.2f, 20 → %.2f; every waiter every Poll, 20 → %.2f", paced5, paced20, flat20)
	require.Less(t, paced20, flat20*0.6, "paced waiters read far less than polling ones")
}

// With wake-ups on, the waiter next in line reads every Poll and the others
// every SlowPoll (here 1s, the default with the default Poll): reads per
// acquisition stay flat and low while the line's turnover is well inside
// SlowPoll. A Locker relies on wake-ups only once one has arrived
// (wakehealth.go), so its first lap of the line is read at the cadence
// without them: over 5 acquisitions per Locker that shows, over 20 much
// less; the bound is on the second.
func TestQueueLock_WithWakeUpsReadsPerAcquisitionStayLow(t *testing.T) {
	n := &memNet{handlers: map[string]func([]byte){}}
	opts := func(i int) *Wake { return &Wake{Transport: memTransport{n, fmt.Sprint(i)}, Key: wakeKey} }
	o := Options{TTL: ttl, Renew: time.Second, Poll: 10 * time.Millisecond, SlowPoll: time.Second}
	first5, first20 := readsPer(t, 5, 5, o, opts), readsPer(t, 20, 5, o, opts)
	r5, r20 := readsPer(t, 5, 20, o, opts), readsPer(t, 20, 20, o, opts)
	t.Logf("reads per acquisition with wake-ups, 20 acquisitions per Locker: 5 → %.2f, 20 → %.2f (5 per Locker: %.2f, %.2f)", r5, r20, first5, first20)
	require.LessOrEqual(t, r5, 3.0)
	require.LessOrEqual(t, r20, 3.0)
	require.Less(t, r20, r5+1, "flat in the number of contenders")
}
