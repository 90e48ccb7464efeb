package migration_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

// A service takes its locks through a migration.Locker whose flag follows
// the fleet-wide phase, while an operator's Controller moves the phase from
// legacy to combined to new. Every lock remembers the mode it was taken in.
// In production the store is cassandra.New(session, keyspace), every replica
// of every service runs such a Locker, and the operator moves the phase with
// `lockctl phase set` (docs/migrating.md).
func Example() {
	ctx := context.Background()
	store := model.New(&clock.Local{}) // the embedded Cassandra model

	// The flag: the phase row, re-read at most every 50 ms.
	flag, err := migration.NewPhaseFlag(store, &migration.PhaseFlagOptions{Cache: 50 * time.Millisecond})
	if err != nil {
		panic(err)
	}
	locker, err := migration.New(store, flag, &migration.Options{ProcessID: "billing-1"})
	if err != nil {
		panic(err)
	}
	defer locker.Close(ctx)

	// Drain: how long a move waits for the fleet to follow before refusing.
	ctl, err := migration.NewController(store, &migration.ControllerOptions{Drain: 5 * time.Second, Poll: 50 * time.Millisecond})
	if err != nil {
		panic(err)
	}

	work := func() {
		l, err := locker.Lock(ctx, "invoice/42")
		if err != nil {
			panic(err)
		}
		fmt.Println("holds invoice/42 in mode", l.Mode())
		// ... work, checking l.Lost() ...
		if err := l.Unlock(context.WithoutCancel(ctx)); err != nil {
			panic(err)
		}
	}

	work() // no phase row yet: the phase reads as legacy
	for _, target := range []lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew} {
		if err := ctl.Set(ctx, target); err != nil {
			panic(err)
		}
		phase, _ := ctl.Get(ctx)
		fmt.Println("phase:", phase)
		time.Sleep(100 * time.Millisecond) // the flag's cache
		work()
	}
	// Output:
	// holds invoice/42 in mode legacy
	// phase: combined
	// holds invoice/42 in mode combined
	// phase: new
	// holds invoice/42 in mode new
}

// The Controller refuses a move that would let two processes hold one lock
// in modes that do not see each other, and names the processes in the way:
// here an old replica still configured for legacy blocks the move to new.
// Nothing is written when a move is refused.
func ExampleController_Set_refused() {
	ctx := context.Background()
	store := model.New(&clock.Local{})

	old, err := migration.New(store, migration.Static(lockstep.ModeLegacy), &migration.Options{ProcessID: "billing-old"})
	if err != nil {
		panic(err)
	}
	defer old.Close(ctx)
	l, err := old.Lock(ctx, "invoice/42") // the census now shows billing-old configured legacy
	if err != nil {
		panic(err)
	}
	defer l.Unlock(ctx)

	ctl, err := migration.NewController(store, nil)
	if err != nil {
		panic(err)
	}
	if err := ctl.Set(ctx, lockstep.ModeCombined); err != nil {
		panic(err)
	}
	err = ctl.Set(ctx, lockstep.ModeNew)
	var move *migration.MoveError
	fmt.Println("refused:", errors.Is(err, lockstep.ErrIncompatibleMode) && errors.As(err, &move))
	for _, b := range move.Blockers {
		fmt.Println("blocked by", b.Process, "configured", b.Configured)
	}
	phase, _ := ctl.Get(ctx)
	fmt.Println("phase:", phase)
	// Output:
	// refused: true
	// blocked by billing-old configured legacy
	// phase: combined
}

// Groups and hierarchical ids work in every mode of the migration. Here the
// phase is legacy, where the legacy format has only exclusive locks: every
// member — the ancestors' intention locks too — is taken exclusively, so
// siblings exclude each other until the fleet reaches mode new.
func ExampleLocker_LockGroup() {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	open := func(p string) *migration.Locker {
		l, err := migration.New(store, migration.Static(lockstep.ModeLegacy),
			&migration.Options{ProcessID: p, Separator: "/"})
		if err != nil {
			panic(err)
		}
		return l
	}
	a, b := open("a"), open("b")
	defer a.Close(ctx)
	defer b.Close(ctx)

	g, err := a.LockGroup(ctx, lockstep.Request{ID: "shop/orders/9"}, lockstep.Request{ID: "shop/stock", Access: lockstep.Shared})
	if err != nil {
		panic(err)
	}
	fmt.Println("a holds", g.ID(), "in mode", g.Mode())
	_, err = b.TryLock(ctx, "shop/orders/8")
	fmt.Println("a sibling, in mode legacy, is busy:", errors.Is(err, lockstep.ErrLocked))
	_ = g.Unlock(ctx)
	// Output:
	// a holds shop/orders/9, shop/stock in mode legacy
	// a sibling, in mode legacy, is busy: true
}
