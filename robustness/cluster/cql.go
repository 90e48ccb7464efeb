package cluster

import (
	"context"
	"fmt"
	"time"

	"github.com/gocql/gocql"
)

// Session opens a CQL session that talks to node n only (coordinator n),
// with the given consistency and per-request timeout. Tests use it to show
// that a nemesis took effect (a QUORUM write through an isolated node fails).
func (c *Cluster) Session(n int, cons gocql.Consistency, timeout time.Duration) (*gocql.Session, error) {
	node, err := c.Node(n)
	if err != nil {
		return nil, err
	}
	cc := gocql.NewCluster(node.IP)
	cc.HostFilter = gocql.WhiteListHostFilter(node.IP)
	cc.DisableInitialHostLookup = true
	cc.Consistency = cons
	cc.Timeout = timeout
	cc.ConnectTimeout = 10 * time.Second
	cc.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: 0}
	cc.DefaultTimestamp = false // server-side write timestamps: the node's clock
	s, err := cc.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("cluster: session to node %d (%s): %w", n, node.IP, err)
	}
	return s, nil
}

// CreateKeyspace creates keyspace ks with SimpleStrategy and replication rf
// (through node 1, at ALL so every node has the schema).
func (c *Cluster) CreateKeyspace(ctx context.Context, ks string, rf int) error {
	s, err := c.Session(1, gocql.All, 30*time.Second)
	if err != nil {
		return err
	}
	defer s.Close()
	q := fmt.Sprintf(`CREATE KEYSPACE IF NOT EXISTS %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': %d}`, ks, rf)
	if err := s.Query(q).WithContext(ctx).Exec(); err != nil {
		return fmt.Errorf("cluster: create keyspace %s: %w", ks, err)
	}
	return nil
}
