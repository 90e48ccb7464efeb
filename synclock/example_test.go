package synclock_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/synclock"
)

// Code written against sync.Locker, here a counter incremented by four
// goroutines of two processes, runs under a distributed lock on the
// embedded Cassandra model.
func Example() {
	ctx := context.Background()
	store := model.New(&clock.Local{})

	var counter int
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		lk, err := queuelock.New(store, &queuelock.Options{ProcessID: name})
		if err != nil {
			panic(err)
		}
		defer lk.Close(ctx)
		m, err := synclock.New(lk, "counter", &synclock.Options{
			OnUnlockError: func(err error) { fmt.Println("release:", err) },
		})
		if err != nil {
			panic(err)
		}
		for range 2 {
			wg.Add(1)
			go func(l sync.Locker) {
				defer wg.Done()
				for range 5 {
					l.Lock()
					select {
					case <-m.Lost():
						// the lease lapsed: another process may hold the lock
					default:
						counter++
					}
					l.Unlock()
				}
			}(m)
		}
	}
	wg.Wait()
	fmt.Println("counter:", counter)
	// Output:
	// counter: 20
}
