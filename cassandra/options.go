package cassandra

import (
	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
)

// Option configures a Store.
type Option func(*config)

type config struct {
	read, write gocql.Consistency
	scope       lockstep.Scope
	levelsSet   bool // WithConsistency was given
}

func defaultConfig() config {
	return config{read: gocql.Quorum, write: gocql.Quorum}
}

// WithConsistency sets the consistency level of reads and of writes
// (including deletes). The default is QUORUM for both. New accepts only the
// pairs that keep the store's scope (WithLocalDC; global by default), and
// says what to use instead of any other:
//
//   - a global store (the default) needs reads and writes that meet
//     whichever data centre each coordinator is in: QUORUM with QUORUM,
//     EACH_QUORUM writes with QUORUM or LOCAL_QUORUM reads, or ALL on
//     either side (not ANY writes). LOCAL_QUORUM writes are refused: a
//     write acknowledged by a quorum of DC1 may not be seen by a
//     LOCAL_QUORUM read in DC2, and two processes would both hold one lock.
//     EACH_QUORUM writes with LOCAL_QUORUM reads keep reads in the local
//     data centre, but a data centre down, or cut off, blocks every write.
//   - a DC-local store (WithLocalDC) takes LOCAL_QUORUM reads and writes
//     (its usual choice: no round trip between data centres), and any pair
//     a global store takes.
//
// ONE, TWO, THREE and LOCAL_ONE pairs without ALL are refused (whether they
// intersect depends on the replication factor), and so are ANY and the serial
// levels, which are for lightweight transactions. docs/multi-dc.md gives the
// argument of each pair and what each keeps working when a data centre
// fails.
func WithConsistency(read, write gocql.Consistency) Option {
	return func(c *config) {
		c.read, c.write, c.levelsSet = read, write, true
	}
}

// WithLocalDC makes the store DC-local (lockstep.LocalTo(dc)): the queue
// lock on it excludes only processes whose stores name the same data centre,
// and keeps its locks in rows of their own ("\x00" + dc + "\x00" + id), apart from
// the global locks and from other data centres' locks of the same ids. It
// reads and writes at LOCAL_QUORUM unless WithConsistency says otherwise
// (the option order does not matter). The default is a global store.
//
// LOCAL_QUORUM is the quorum of the coordinator's data centre, so the
// session must send every request to dc: route it with
// gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy(dc)), and keep
// the driver from failing over to another data centre's nodes with
// cluster.HostFilter = gocql.DataCentreHostFilter(dc) (DCAwareRoundRobinPolicy
// alone falls back to remote nodes when no local one is up). The store
// checks the coordinator of every answer and refuses one from another data
// centre: a read fails, a write fails as an unknown outcome, both wrapping
// lockstep.ErrRefused (the message names the coordinator and says how to route
// the session), so Lock fails at once instead of taking the lock on another
// data centre's quorum. The legacy lock, the combined
// mode and package migration refuse a DC-local store: their state is
// fleet-wide (docs/multi-dc.md).
func WithLocalDC(dc string) Option {
	return func(c *config) {
		c.scope = lockstep.LocalTo(dc)
		if !c.levelsSet {
			c.read, c.write = gocql.LocalQuorum, gocql.LocalQuorum
		}
	}
}
