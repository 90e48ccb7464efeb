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
	store := model.New(&clock.Local{}) // the embedded Cassandra model
	a, _ := queuelock.New(store, &queuelock.Options{ProcessID: "a"})
	defer a.Close(ctx)
	b, _ := queuelock.New(store, &queuelock.Options{ProcessID: "b"})
	defer b.Close(ctx)

	l, err := a.Lock(ctx, "invoice/42") // ctx bounds the wait, not the lease
	if err != nil {
		panic(err)
	}
	fmt.Println("a holds", l.ID(), "in mode", l.Mode())
	_, err = b.TryLock(ctx, "invoice/42")
	fmt.Println("b is refused:", errors.Is(err, lockstep.ErrLocked))
	select {
	case <-l.Lost(): // no renewal succeeded within the lease window: stop
	default: // ... work under the lock, checking l.Lost() ...
	}
	_ = l.Unlock(context.WithoutCancel(ctx))
	// Output:
	// a holds invoice/42 in mode new
	// b is refused: true
}
