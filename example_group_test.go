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

// Readers share a lock id; a writer excludes them. Accesses are the lock
// modes of multi-granularity locking: X, S, and the intention modes IS, IX
// and SIX that hierarchical ids take on ancestors.
func ExampleAccess() {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	a, _ := queuelock.New(store, &queuelock.Options{ProcessID: "a"})
	defer a.Close(ctx)
	b, _ := queuelock.New(store, &queuelock.Options{ProcessID: "b"})
	defer b.Close(ctx)

	read := lockstep.Request{ID: "report/7", Access: lockstep.Shared}
	ra, _ := a.LockGroup(ctx, read)
	rb, err := b.TryLockGroup(ctx, read)
	fmt.Println("two readers at once:", err == nil)

	_, err = b.TryLock(ctx, "report/7") // Lock and TryLock are exclusive
	fmt.Println("a writer is refused:", errors.Is(err, lockstep.ErrLocked))
	_ = ra.Unlock(ctx)
	_ = rb.Unlock(ctx)

	fmt.Println(lockstep.Shared.Compatible(lockstep.IntentShared), lockstep.Join(lockstep.Shared, lockstep.IntentExclusive))
	// Output:
	// two readers at once: true
	// a writer is refused: true
	// true SIX
}

// A lock group takes several ids as one lock, in one canonical order, so
// two groups never deadlock. With a Separator, ids are hierarchical: a lock
// of "tenant/1/doc/5" takes intention locks on "tenant", "tenant/1" and
// "tenant/1/doc" first, so it conflicts with a lock of any ancestor or
// descendant and not with its siblings.
func ExampleGroupLocker() {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	opts := func(p string) *queuelock.Options { return &queuelock.Options{ProcessID: p, Separator: "/"} }
	a, _ := queuelock.New(store, opts("a"))
	defer a.Close(ctx)
	b, _ := queuelock.New(store, opts("b"))
	defer b.Close(ctx)

	g, err := a.LockGroup(ctx,
		lockstep.Request{ID: "tenant/1/doc/5"},
		lockstep.Request{ID: "tenant/1/doc/2", Access: lockstep.Shared})
	if err != nil {
		panic(err)
	}
	fmt.Println("held:", g.ID())
	for _, m := range g.(lockstep.Grouped).Members() {
		fmt.Println(" ", m)
	}

	sibling, err := b.TryLock(ctx, "tenant/1/doc/9")
	fmt.Println("a sibling is free:", err == nil)
	_ = sibling.Unlock(ctx)
	_, err = b.TryLock(ctx, "tenant/1")
	fmt.Println("the ancestor is busy:", errors.Is(err, lockstep.ErrLocked))

	_ = g.Unlock(ctx) // one Unlock releases every member, last taken first
	// Output:
	// held: tenant/1/doc/5, tenant/1/doc/2
	//   tenant:IX
	//   tenant/1:IX
	//   tenant/1/doc:IX
	//   tenant/1/doc/2:S
	//   tenant/1/doc/5:X
	// a sibling is free: true
	// the ancestor is busy: true
}

// Reentrancy is opt-in: the caller makes the unit of work explicit. Seed
// 003's scenario 3: one unit takes a write lock twice and releases it
// twice, then a read lock likewise.
func ExampleUnit() {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	l, _ := queuelock.New(store, &queuelock.Options{ProcessID: "a"})
	defer l.Close(ctx)

	job := l.Unit("job-17")
	for _, access := range []lockstep.Access{lockstep.Exclusive, lockstep.Shared} {
		first, _ := job.LockGroup(ctx, lockstep.Request{ID: "ledger", Access: access})
		second, err := job.LockGroup(ctx, lockstep.Request{ID: "ledger", Access: access})
		fmt.Println(access, "taken twice:", err == nil)
		_ = second.Unlock(ctx)
		_ = first.Unlock(ctx)
	}
	_, err := job.LockGroup(ctx, lockstep.Request{ID: "ledger", Access: lockstep.Shared})
	_, err2 := job.LockGroup(ctx, lockstep.Request{ID: "ledger"})
	fmt.Println(err == nil, "then X under S:", errors.Is(err2, lockstep.ErrUpgrade))
	// Output:
	// X taken twice: true
	// S taken twice: true
	// true then X under S: true
}
