package election_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/election"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// candidate builds one process's fenced queue Locker and its Election of
// "scheduler". In production the store is cassandra.New(session, keyspace).
func candidate(store lockstep.Store, name string) (*queuelock.Locker, *election.Election) {
	clk := &clock.Local{}
	global, err := clock.NewGlobal(store, "", clk)
	if err != nil {
		panic(err)
	}
	lk, err := queuelock.New(store, &queuelock.Options{ProcessID: name, Clock: clk, Fencing: global})
	if err != nil {
		panic(err)
	}
	e, err := election.New(lk, store, "scheduler", &election.Options{Clock: clk, Poll: 10 * time.Millisecond})
	if err != nil {
		panic(err)
	}
	return lk, e
}

// Two candidates and an observer on the embedded Cassandra model: a leads,
// b waits in line and leads once a resigns, with a higher term; the
// observer, which never campaigns, follows along.
func Example() {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	lka, a := candidate(store, "a")
	defer lka.Close(ctx)
	lkb, b := candidate(store, "b")
	defer lkb.Close(ctx)
	// A process that only watches needs no Locker.
	observer, err := election.New(nil, store, "scheduler", &election.Options{Poll: 10 * time.Millisecond})
	if err != nil {
		panic(err)
	}

	la, err := a.Campaign(ctx, "10.0.0.1:8080")
	if err != nil {
		panic(err)
	}
	who, _, _ := observer.Leader(ctx)
	fmt.Println("leader:", who.Value)

	won := make(chan *election.Leadership)
	go func() {
		lb, err := b.Campaign(ctx, "10.0.0.2:8080") // waits behind a
		if err != nil {
			panic(err)
		}
		won <- lb
	}()

	octx, stop := context.WithCancel(ctx)
	changes := observer.Observe(octx)
	fmt.Println("observed:", (<-changes).Value)

	select {
	case <-la.Done():
		fmt.Println("a lost its lease")
	default:
		// ... lead, passing la.Term() to fenced resources ...
	}
	if err := la.Resign(context.WithoutCancel(ctx)); err != nil {
		panic(err)
	}
	lb := <-won
	for c := range changes {
		if c.Value == "10.0.0.2:8080" {
			fmt.Println("observed:", c.Value, "with a higher term:", c.Term > la.Term())
			break
		}
	}
	stop()
	for range changes { // wait for the observer's goroutine to end
	}
	_ = lb.Resign(context.WithoutCancel(ctx))
	// Output:
	// leader: 10.0.0.1:8080
	// observed: 10.0.0.1:8080
	// observed: 10.0.0.2:8080 with a higher term: true
}
