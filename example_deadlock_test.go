package lockstep_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// Two units of work (each a Locker's Unit), take "a" and "b" in
// opposite orders: a deadlock no lock order can prevent, since the callers
// chose the orders. With deadlock detection on, one of the two waits fails
// with ErrDeadlock, whose error lists the cycle with the comments the
// callers gave; that unit releases what it holds and the other proceeds.
// (The short After and Every only keep the example quick; the defaults are
// one second each.)
func ExampleDeadlockDetection() {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	detect := &lockstep.DeadlockDetection{After: 10 * time.Millisecond, Every: 100 * time.Millisecond}
	run := func(process, first, second string, done chan<- error) {
		lk, _ := queuelock.New(store, &queuelock.Options{ProcessID: process, Deadlock: detect})
		defer lk.Close(ctx)
		unit := lk.Unit("moving " + first + " to " + second)
		l1, _ := unit.Lock(ctx, first)
		defer l1.Unlock(ctx)
		time.Sleep(50 * time.Millisecond) // both hold their first id
		l2, err := unit.Lock(ctx, second)
		if err == nil {
			_ = l2.Unlock(ctx)
		}
		done <- err
	}
	done := make(chan error, 2)
	go run("p1", "a", "b", done)
	go run("p2", "b", "a", done)
	first, second := <-done, <-done
	var de *lockstep.DeadlockError
	fmt.Println("the first to return is the victim:", errors.As(first, &de), len(de.Cycle), "waits")
	fmt.Println("the other proceeds:", second == nil)
	// Output:
	// the first to return is the victim: true 2 waits
	// the other proceeds: true
}

// UnlockAll releases everything a unit of work holds through a Locker.
func ExampleUnit_unlockAll() {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	lk, _ := queuelock.New(store, &queuelock.Options{ProcessID: "a", Separator: "/"})
	defer lk.Close(ctx)
	other, _ := queuelock.New(store, &queuelock.Options{ProcessID: "b", Separator: "/"})
	defer other.Close(ctx)

	job := lk.Unit("job 42")
	_, _ = job.Lock(ctx, "orders/42")
	_, _ = job.LockGroup(ctx, lockstep.Request{ID: "stock/*", Access: lockstep.Shared}) // a mask: every child of stock
	_, err := other.TryLock(ctx, "stock/apples")
	fmt.Println("stock/apples busy:", errors.Is(err, lockstep.ErrLocked))

	fmt.Println("unlock all:", job.UnlockAll(ctx))
	l, err := other.TryLock(ctx, "stock/apples")
	fmt.Println("stock/apples free:", err == nil)
	_ = l.Unlock(ctx)
	// Output:
	// stock/apples busy: true
	// unlock all: <nil>
	// stock/apples free: true
}
