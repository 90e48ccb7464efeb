package lockstep_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// Two processes contend for one lock on the embedded Cassandra model. In
// production the store is cassandra.New(session, keyspace) instead.
func Example() {
	ctx := context.Background()
	store := model.New(&clock.Local{})

	a, err := queuelock.New(store, &queuelock.Options{ProcessID: "a"})
	if err != nil {
		panic(err)
	}
	defer a.Close(ctx)
	b, _ := queuelock.New(store, &queuelock.Options{ProcessID: "b"})
	defer b.Close(ctx)

	l, err := a.Lock(ctx, "invoice/42")
	if err != nil {
		panic(err)
	}
	fmt.Println("a holds", l.ID(), "as", l.Owner(), "in mode", l.Mode())

	_, err = b.TryLock(ctx, "invoice/42")
	fmt.Println("b's TryLock is refused:", errors.Is(err, lockstep.ErrLocked))

	select {
	case <-l.Lost():
		fmt.Println("lease lost: stop work")
	default:
		// ... work under the lock, checking l.Lost() ...
	}
	if err := l.Unlock(context.WithoutCancel(ctx)); err != nil {
		panic(err)
	}

	l2, err := b.TryLock(ctx, "invoice/42")
	// Owner ids are per attempt: b.1 was the refused TryLock.
	fmt.Println("after release b holds it:", err == nil, l2.Owner())
	_ = l2.Unlock(ctx)
	// Output:
	// a holds invoice/42 as a.1 in mode new
	// b's TryLock is refused: true
	// after release b holds it: true b.2
}
