package cassandra_test

import (
	"context"
	"log"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/migration"
)

// The production store on a gocql session, driving a migration.Locker.
// Consistency defaults to QUORUM for reads and writes; with several data
// centres, LOCAL_QUORUM keeps lock traffic in the local one (all processes
// contending for a lock must then use the same data centre). This example
// needs a cluster, so it is compiled but not run; the integration tests
// (build tag integration) run the same code on a real node.
func ExampleNew() {
	ctx := context.Background()
	cluster := gocql.NewCluster("10.0.0.1", "10.0.0.2", "10.0.0.3")
	cluster.Timeout = 2 * time.Second
	session, err := cluster.CreateSession()
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	store, err := cassandra.New(session, "locks", cassandra.WithConsistency(gocql.LocalQuorum, gocql.LocalQuorum))
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
