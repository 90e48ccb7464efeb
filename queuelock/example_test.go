package queuelock_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// The queue lock alone, for a fleet in which no process takes legacy locks
// (beside a legacy fleet, use migration.Locker: two algorithms that do not
// see each other's cells give two holders). Waiters are served first come,
// first served: b, queued first, gets the lock before c.
func Example() {
	ctx := context.Background()
	store := model.New(&clock.Local{}) // production: cassandra.New(session, "locks")
	newLocker := func(process string) *queuelock.Locker {
		l, err := queuelock.New(store, &queuelock.Options{ProcessID: process, TTL: 30 * time.Second})
		if err != nil {
			panic(err)
		}
		return l
	}
	a, b, c := newLocker("a"), newLocker("b"), newLocker("c")
	defer a.Close(ctx)
	defer b.Close(ctx)
	defer c.Close(ctx)

	held, err := a.Lock(ctx, "report/2026-11")
	if err != nil {
		panic(err)
	}
	order := make(chan string, 2)
	waiter := func(l *queuelock.Locker, name string) {
		h, err := l.Lock(ctx, "report/2026-11")
		if err != nil {
			panic(err)
		}
		order <- name
		_ = h.Unlock(ctx)
	}
	go waiter(b, "b")
	time.Sleep(200 * time.Millisecond) // b's cell is in line before c's
	go waiter(c, "c")
	time.Sleep(200 * time.Millisecond)

	fmt.Println("a holds it as", held.Owner())
	_ = held.Unlock(context.WithoutCancel(ctx))
	fmt.Println("then", <-order, "then", <-order)
	// Output:
	// a holds it as a.1
	// then b then c
}
