package fence_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/fence"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// Two holders of one lock write a resource through a fence. The first
// holder's write that arrives after the lock passed on is refused. On the
// embedded Cassandra model; in production the lock store is
// cassandra.New(session, keyspace) and the fence store
// cassandra.NewFenceStore(session, keyspace).
func Example() {
	ctx := context.Background()
	cells := model.New(&clock.Local{})
	tokens, err := clock.NewGlobal(cells, "", &clock.Local{})
	if err != nil {
		panic(err)
	}
	resource, err := fence.NewRegister(model.NewFenceStore(), "")
	if err != nil {
		panic(err)
	}
	a, _ := queuelock.New(cells, &queuelock.Options{ProcessID: "a", Fencing: tokens})
	defer a.Close(ctx)
	b, _ := queuelock.New(cells, &queuelock.Options{ProcessID: "b", Fencing: tokens})
	defer b.Close(ctx)

	la, err := a.Lock(ctx, "invoice/42")
	if err != nil {
		panic(err)
	}
	fa := la.(lockstep.Fenced)
	fmt.Println("a commits:", resource.Commit(ctx, fa, "invoice/42", []byte("draft by a")))
	_ = la.Unlock(ctx) // or a's lease lapses while it is paused

	lb, err := b.Lock(ctx, "invoice/42")
	if err != nil {
		panic(err)
	}
	defer lb.Unlock(ctx)
	fb := lb.(lockstep.Fenced)
	fmt.Println("b's token is higher:", fb.Token() > fa.Token())
	fmt.Println("b commits:", resource.Commit(ctx, fb, "invoice/42", []byte("final by b")))

	// A write a sent while it held the lock arrives only now.
	err = resource.Commit(ctx, fa, "invoice/42", []byte("late write by a"))
	fmt.Println("a's late write is refused:", errors.Is(err, lockstep.ErrStaleToken))

	v, _ := resource.Load(ctx, "invoice/42")
	fmt.Printf("invoice/42 holds %q\n", v.Value)
	// Output:
	// a commits: <nil>
	// b's token is higher: true
	// b commits: <nil>
	// a's late write is refused: true
	// invoice/42 holds "final by b"
}
