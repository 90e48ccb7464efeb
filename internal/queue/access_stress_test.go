package queue

import (
	"context"
	"math/rand/v2"
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

// Goroutines of three Lockers take one id in random accesses while one
// delete in eight fails (cleanups, withdrawals and Unlocks, retried by the
// users): no two holders are ever incompatible, and every acquisition
// completes. A randomized companion of the model checks, on the Locker
// itself: it exercises slot reuse, retried Unlocks (Turns.Reserve) and
// wake-up-free handoffs between sharing holders.
func TestAccess_RandomAccessesWithFailingDeletesStayCompatible(t *testing.T) {
	for seed := range uint64(6) {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			base := model.New(&clock.Local{})
			var mu sync.Mutex
			r := rand.New(rand.NewPCG(seed, 1))
			f := &failing{Store: base, failPut: func([]lockstep.Cell) bool { return false },
				failDelete: func([]string) bool { mu.Lock(); defer mu.Unlock(); return r.IntN(8) == 0 }}
			f.on.Store(true)
			holders := map[*int]lockstep.Access{}
			var acquired atomic.Int64
			var wg sync.WaitGroup
			for p := range 3 {
				l := newLocker(t, f, nil)
				for g := range 2 {
					gr := rand.New(rand.NewPCG(seed, uint64(10*p+g)))
					wg.Go(func() {
						for range 15 {
							a := lockstep.Access(gr.IntN(5))
							lk, err := lockIn(ctx, l, "id", a)
							if !assertNoErr(t, err) {
								return
							}
							me := new(int)
							mu.Lock()
							for _, b := range holders {
								if !a.Compatible(b) {
									t.Errorf("seed %d: %v holds beside %v", seed, a, b)
								}
							}
							holders[me] = a
							mu.Unlock()
							acquired.Add(1)
							time.Sleep(time.Duration(gr.IntN(50)) * time.Millisecond)
							mu.Lock()
							delete(holders, me)
							mu.Unlock()
							for lk.Unlock(ctx) != nil {
							}
						}
					})
				}
			}
			wg.Wait()
			require.EqualValues(t, 3*2*15, acquired.Load())
		})
	}
}

func assertNoErr(t *testing.T, err error) bool {
	t.Helper()
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}
