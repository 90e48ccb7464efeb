package clock_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// A hybrid logical clock never returns a time at or below one it has
// observed, however far the local clock lags: this is how a queue waiter
// whose clock is behind still names its cell after the cells it has read.
func ExampleHLC() {
	local := model.NewManualClock(1_000_000) // a local clock reading 1 s
	h := clock.NewHLC(local)
	h.Observe(5_000_000) // a queue cell named 5 s, read from another process
	fmt.Println(h.Now() > 5_000_000, h.Now() > 5_000_001)
	// Output:
	// true true
}

// The global time service hands out fencing tokens that strictly increase
// across every process that draws from the same table, whatever their local
// clocks say.
func ExampleGlobal_Next() {
	ctx := context.Background()
	store := model.New(&clock.Local{}) // production: cassandra.New(session, "locks")
	fast, err := clock.NewGlobal(store, clock.DefaultGlobalTable, clock.Offset{Base: &clock.Local{}, By: time.Hour})
	if err != nil {
		panic(err)
	}
	slow, err := clock.NewGlobal(store, clock.DefaultGlobalTable, &clock.Local{})
	if err != nil {
		panic(err)
	}
	t1, _ := fast.Next(ctx) // an hour ahead
	t2, _ := slow.Next(ctx) // on time, yet above t1
	fmt.Println(t2 > t1)
	// Output:
	// true
}
