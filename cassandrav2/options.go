package cassandrav2

import gocql "github.com/apache/cassandra-gocql-driver/v2"

// Option configures a Store.
type Option func(*config)

type config struct {
	read, write gocql.Consistency
}

// WithConsistency sets the consistency level of reads and of writes
// (including deletes). The default is QUORUM for both. New accepts the same
// pairs as package cassandra's WithConsistency, whose comment gives the
// reasons: QUORUM reads with QUORUM or EACH_QUORUM writes, LOCAL_QUORUM reads
// with LOCAL_QUORUM or EACH_QUORUM writes (safe only if every contender for a
// lock id lives in one data centre), and ALL on either side (but not ANY
// writes). Every other pair, and the serial levels, are refused.
func WithConsistency(read, write gocql.Consistency) Option {
	return func(c *config) {
		c.read, c.write = read, write
	}
}
