package queuelock

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
	return readsPer(t, n, opts, nil)
}

// readsPerAcquisitionWith is readsPerAcquisition with wake-ups, wake(i)
// being Locker i's.
func readsPerAcquisitionWith(t *testing.T, n int, wake func(i int) *Wake) float64 {
	return readsPer(t, n, Options{TTL: ttl, Renew: time.Second, Poll: 10 * time.Millisecond, SlowPoll: time.Second}, wake)
}

func readsPer(t *testing.T, n int, opts Options, wake func(i int) *Wake) float64 {
	var perAcq float64
	synctest.Test(t, func(t *testing.T) {
		c := &clock.Local{}
		f, err := model.NewFaulty(model.New(c), model.FaultConfig{MinLatency: time.Millisecond, MaxLatency: time.Millisecond, Clock: c})
		require.NoError(t, err)
		s := &readCounter{Store: f}
		const k = 5
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
// SlowPoll.
func TestQueueLock_WithWakeUpsReadsPerAcquisitionStayLow(t *testing.T) {
	n := &memNet{handlers: map[string]func([]byte){}}
	opts := func(i int) *Wake { return &Wake{Transport: memTransport{n, fmt.Sprint(i)}, Key: wakeKey} }
	r5 := readsPerAcquisitionWith(t, 5, opts)
	r20 := readsPerAcquisitionWith(t, 20, opts)
	t.Logf("reads per acquisition with wake-ups: 5 → %.2f, 20 → %.2f", r5, r20)
	require.LessOrEqual(t, r5, 4.0)
	require.LessOrEqual(t, r20, 4.0)
	require.Less(t, r20, r5+1, "flat in the number of contenders")
}
