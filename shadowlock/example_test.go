package shadowlock_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// The legacy shadow-table lock, storage-compatible with processes still
// running the old implementation: its tables and TTL must match theirs.
// It is unfair under contention (a releaser tends to re-win); use it
// through migration.Locker, which moves a fleet off it safely.
func Example() {
	ctx := context.Background()
	store := model.New(&clock.Local{}) // production: cassandra.New(session, "locks")

	a, err := shadowlock.New(store, &shadowlock.Options{ProcessID: "a"})
	if err != nil {
		panic(err)
	}
	defer a.Close(ctx)
	b, err := shadowlock.New(store, &shadowlock.Options{ProcessID: "b"})
	if err != nil {
		panic(err)
	}
	defer b.Close(ctx)

	l, err := a.Lock(ctx, "invoice/42")
	if err != nil {
		panic(err)
	}
	_, err = b.TryLock(ctx, "invoice/42")
	fmt.Println("b refused:", errors.Is(err, lockstep.ErrLocked))
	fmt.Println("mode:", l.Mode())
	_ = l.Unlock(context.WithoutCancel(ctx))
	// Output:
	// b refused: true
	// mode: legacy
}
