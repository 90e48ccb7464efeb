package cassandra

import "github.com/gocql/gocql"

// Option configures a Store.
type Option func(*config)

type config struct {
	read, write gocql.Consistency
}

func defaultConfig() config {
	return config{read: gocql.Quorum, write: gocql.Quorum}
}

// WithConsistency sets the consistency level of reads and of writes
// (including deletes). The default is QUORUM for both. New accepts only pairs
// whose read and write replica sets intersect whatever the replication
// factor, so a read that starts after a write completed sees it:
//
//   - QUORUM reads with QUORUM or EACH_QUORUM writes;
//   - LOCAL_QUORUM reads with LOCAL_QUORUM or EACH_QUORUM writes;
//   - ALL reads with any write level but ANY, and ALL writes with any read
//     level, at the price of availability: one replica down blocks them.
//
// LOCAL_QUORUM reads and writes intersect only inside one data centre. A
// write acknowledged by a LOCAL_QUORUM in DC1 may not be seen by a
// LOCAL_QUORUM read in DC2 until it replicates, so two processes in
// different data centres can both believe they hold the same lock.
// LOCAL_QUORUM is safe only if every contender for a lock id lives in one
// data centre (for example, lock ids partitioned by region); otherwise use
// QUORUM, or EACH_QUORUM writes.
//
// ONE, TWO, THREE and LOCAL_ONE pairs without ALL are refused (whether they
// intersect depends on the replication factor), and so are ANY and the serial
// levels, which are for lightweight transactions.
func WithConsistency(read, write gocql.Consistency) Option {
	return func(c *config) {
		c.read, c.write = read, write
	}
}
