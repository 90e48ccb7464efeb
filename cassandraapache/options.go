package cassandraapache

import (
	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/lockstep-go/lockstep"
)

// Option configures a Store.
type Option func(*config)

type config struct {
	read, write gocql.Consistency
	scope       lockstep.Scope
	levelsSet   bool // WithConsistency was given
}

// WithConsistency sets the consistency level of reads and of writes
// (including deletes). The default is QUORUM for both. New accepts the same
// pairs as package cassandra's WithConsistency, whose comment gives the
// reasons: for a global store (the default) QUORUM with QUORUM, EACH_QUORUM
// writes with QUORUM or LOCAL_QUORUM reads, or ALL on either side (not ANY
// writes); for a DC-local store (WithLocalDC) also LOCAL_QUORUM with
// LOCAL_QUORUM. Every other pair, and the serial levels, are refused with an
// error that says what to use.
func WithConsistency(read, write gocql.Consistency) Option {
	return func(c *config) {
		c.read, c.write, c.levelsSet = read, write, true
	}
}

// WithLocalDC makes the store DC-local (lockstep.LocalTo(dc)), reading and
// writing at LOCAL_QUORUM unless WithConsistency says otherwise, as package
// cassandra's WithLocalDC does; its comment says how the session must be
// routed. Like it, the store refuses an answer from a coordinator of another
// data centre (an error wrapping lockstep.ErrRefused that says how to route
// the session). The default is a global store.
func WithLocalDC(dc string) Option {
	return func(c *config) {
		c.scope = lockstep.LocalTo(dc)
		if !c.levelsSet {
			c.read, c.write = gocql.LocalQuorum, gocql.LocalQuorum
		}
	}
}
