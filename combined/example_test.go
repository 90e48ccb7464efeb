package combined_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// A combined lock is a queue lock and a legacy lock of the same id, held
// together, so it excludes holders of either algorithm. Compose builds one
// from a process's two Lockers without owning them (migration.Locker does
// this for you and switches modes by flag).
func ExampleCompose() {
	ctx := context.Background()
	store := model.New(&clock.Local{})

	// A process still on the legacy algorithm holds invoice/42.
	old, err := shadowlock.New(store, &shadowlock.Options{ProcessID: "old"})
	if err != nil {
		panic(err)
	}
	defer old.Close(ctx)
	held, err := old.Lock(ctx, "invoice/42")
	if err != nil {
		panic(err)
	}

	// A migrated process composes its two Lockers.
	q, err := queuelock.New(store, &queuelock.Options{ProcessID: "new"})
	if err != nil {
		panic(err)
	}
	defer q.Close(ctx)
	g, err := shadowlock.New(store, &shadowlock.Options{ProcessID: "new"})
	if err != nil {
		panic(err)
	}
	defer g.Close(ctx)
	c, err := combined.Compose(q, g, nil)
	if err != nil {
		panic(err)
	}

	_, err = c.TryLock(ctx, "invoice/42")
	fmt.Println("refused while the legacy holder holds it:", errors.Is(err, lockstep.ErrLocked))

	_ = held.Unlock(ctx)
	l, err := c.TryLock(ctx, "invoice/42")
	if err != nil {
		panic(err)
	}
	fmt.Println("then held in mode", l.Mode())
	_ = l.Unlock(ctx)
	// Output:
	// refused while the legacy holder holds it: true
	// then held in mode combined
}
