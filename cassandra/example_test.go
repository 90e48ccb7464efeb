package cassandra_test

import (
	"context"
	"log"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/queuelock"
)

// The production store on a gocql session, driving a migration.Locker. Its
// locks are global: one holder across every data centre. Consistency
// defaults to QUORUM for reads and writes; with several data centres,
// EACH_QUORUM writes with LOCAL_QUORUM reads keep reads in the local one
// (a data centre down then blocks writes), while LOCAL_QUORUM writes are
// refused, since they cannot keep a global lock global (docs/multi-dc.md).
// This example needs a cluster, so it is compiled but not run; the
// integration tests (build tag integration) run the same code on a real
// node.
func ExampleNew() {
	ctx := context.Background()
	cluster := gocql.NewCluster("10.0.0.1", "10.0.0.2", "10.0.0.3")
	cluster.Timeout = 2 * time.Second
	cluster.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy("dc1"))
	session, err := cluster.CreateSession()
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	store, err := cassandra.New(session, "locks", cassandra.WithConsistency(gocql.LocalQuorum, gocql.EachQuorum))
	if err != nil {
		log.Fatal(err)
	}
	locker, err := migration.New(store, migration.Env("LOCKSTEP_MODE"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer locker.Close(ctx)

	l, err := locker.Lock(ctx, "invoice/42")
	if err != nil {
		log.Fatal(err)
	}
	defer l.Unlock(context.WithoutCancel(ctx))
	// ... work while l.Lost() is open ...
}

// A DC-local store: its queue locks exclude only the processes of data
// centre dc1, at LOCAL_QUORUM, with no round trip to another data centre.
// A process in dc2 taking "cache/refill" on its own DC-local store holds a
// different lock, at the same time. The session routes every request to
// dc1. Compiled, not run.
func ExampleWithLocalDC() {
	ctx := context.Background()
	cluster := gocql.NewCluster("10.0.0.1", "10.0.0.2", "10.0.0.3")
	cluster.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy("dc1"))
	session, err := cluster.CreateSession()
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	store, err := cassandra.New(session, "locks", cassandra.WithLocalDC("dc1"))
	if err != nil {
		log.Fatal(err)
	}
	locker, err := queuelock.New(store, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer locker.Close(ctx)

	l, err := locker.Lock(ctx, "cache/refill")
	if err != nil {
		log.Fatal(err)
	}
	defer l.Unlock(context.WithoutCancel(ctx))
	// ... refill dc1's cache while l.Lost() is open ...
}
