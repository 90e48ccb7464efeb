package cassandraapache_test

import (
	"context"
	"log"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandraapache"
	"github.com/lockstep-go/lockstep/migration"
)

// A service on the Apache driver builds its Store from its own session and
// takes locks through migration.Locker, which follows the fleet's flag from
// legacy through combined to new. The tables come first, from
// `lockctl schema apply`.
// (Not run by go test: it needs a cluster. The integration tests run the
// same calls on a real node.)
func Example() {
	ctx := context.Background()

	cluster := gocql.NewCluster("10.0.0.1", "10.0.0.2", "10.0.0.3")
	cluster.Timeout = 5 * time.Second
	session, err := cluster.CreateSession()
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	// QUORUM reads and writes by default; see WithConsistency.
	store, err := cassandraapache.New(session, "locks")
	if err != nil {
		log.Fatal(err)
	}

	// The mode comes from the rollout's flag; Static pins it, as a fleet
	// still entirely on the legacy lock starts.
	locker, err := migration.New(store, migration.Static(lockstep.ModeLegacy), &migration.Options{ProcessID: "billing-7"})
	if err != nil {
		log.Fatal(err)
	}
	defer locker.Close(context.WithoutCancel(ctx))

	l, err := locker.Lock(ctx, "invoice/42")
	if err != nil {
		log.Fatal(err)
	}
	defer l.Unlock(context.WithoutCancel(ctx))
	select {
	case <-l.Lost():
		log.Print("lease lost: stop work")
	default:
		// ... work under the lock, checking l.Lost() ...
	}
}
