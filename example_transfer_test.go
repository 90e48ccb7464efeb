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

// A worker hands the lock it holds to a successor without releasing it
// (seed 003's setToken): Share on the worker gives a token, Adopt on the
// successor continues the same lock — same ID, owner and fencing token —
// and only then does the worker Unlock, which leaves the lock to the
// successor. Nobody else can take the lock in between; the last holder's
// Unlock releases it.
func ExampleSharer() {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	worker, _ := queuelock.New(store, &queuelock.Options{ProcessID: "worker"})
	defer worker.Close(ctx)
	successor, _ := queuelock.New(store, &queuelock.Options{ProcessID: "successor"})
	defer successor.Close(ctx)
	other, _ := queuelock.New(store, &queuelock.Options{ProcessID: "other"})
	defer other.Close(ctx)

	l, err := worker.Lock(ctx, "job/42")
	if err != nil {
		panic(err)
	}
	tok, err := worker.Share(l) // a string: send it to the successor
	if err != nil {
		panic(err)
	}
	l2, err := successor.Adopt(ctx, tok)
	if err != nil {
		panic(err) // the lock was not held any more: nothing changed
	}
	fmt.Println("same lock:", l2.ID() == l.ID(), l2.Owner() == l.Owner())
	_ = l.Unlock(ctx) // the worker leaves; the successor still holds

	_, err = other.TryLock(ctx, "job/42")
	fmt.Println("another process is refused:", errors.Is(err, lockstep.ErrLocked))

	_ = l2.Unlock(ctx) // the last holder releases
	l3, err := other.TryLock(ctx, "job/42")
	fmt.Println("free after the last holder left:", err == nil)
	_ = l3.Unlock(ctx)
	// Output:
	// same lock: true true
	// another process is refused: true
	// free after the last holder left: true
}
