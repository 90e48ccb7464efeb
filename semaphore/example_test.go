package semaphore_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/semaphore"
)

// At most two exports run at once across the fleet, here three processes
// on the embedded Cassandra model.
func Example() {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	sems := make([]*semaphore.Semaphore, 3)
	for i, name := range []string{"a", "b", "c"} {
		lk, err := queuelock.New(store, &queuelock.Options{ProcessID: name})
		if err != nil {
			panic(err)
		}
		defer lk.Close(ctx)
		if sems[i], err = semaphore.New(lk, "exports", 2, nil); err != nil {
			panic(err)
		}
	}

	pa, err := sems[0].Acquire(ctx)
	if err != nil {
		panic(err)
	}
	pb, err := sems[1].Acquire(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("a and b hold different slots:", pa.Slot() != pb.Slot())

	_, err = sems[2].TryAcquire(ctx)
	fmt.Println("c is refused while both slots are held:", errors.Is(err, lockstep.ErrLocked))

	_ = pa.Release(ctx)
	pc, err := sems[2].Acquire(ctx)
	fmt.Println("after a releases, c holds", pc.Slot() == pa.Slot(), err)
	_ = pb.Release(ctx)
	_ = pc.Release(ctx)
	// Output:
	// a and b hold different slots: true
	// c is refused while both slots are held: true
	// after a releases, c holds true <nil>
}
