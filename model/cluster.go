package model

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
)

// ClusterConfig shapes a simulated cluster.
type ClusterConfig struct {
	// Replicas is the replication factor N. Default 3.
	Replicas int
	// W is how many replicas must apply a write before it is acknowledged.
	// Default a quorum, N/2+1.
	W int
	// R is how many replicas a read merges. Default a quorum, N/2+1.
	R int
	// NoReadRepair switches blocking read repair off: a read then returns
	// the merge of its replicas without writing the winners back to the
	// stale ones, so two reads may disagree (monotonic reads break). Default
	// off (read repair on), as Cassandra does at QUORUM.
	NoReadRepair bool
	// GCGrace is each replica's gc_grace_seconds. Default DefaultGCGrace.
	GCGrace time.Duration
	// DCs, when set, names each replica's data centre (0, 1, ...), one
	// entry per replica: requests then count their replicas by Level
	// (dc.go), and Read leaves the bound R to its caller. Default: one data
	// centre.
	DCs []int
}

func (c ClusterConfig) withDefaults() ClusterConfig {
	if c.Replicas == 0 {
		c.Replicas = 3
	}
	if c.W == 0 {
		c.W = c.Replicas/2 + 1
	}
	if c.R == 0 {
		c.R = c.Replicas/2 + 1
	}
	if c.GCGrace == 0 {
		c.GCGrace = DefaultGCGrace
	}
	return c
}

// Cluster is a simulated Cassandra cluster of N replicas, each a Store with
// its own clock (a base clock plus a per-replica skew). It does not decide
// anything by itself: the caller (a scheduler) says which replicas apply a
// write now, which mutations reach the others later or never (a hint that
// never arrives), and which replicas a read asks. Reads merge by Reconcile
// (Cassandra's resolveRegular) and, unless switched off, repair the replicas
// they asked before returning (blocking read repair), so that a read that
// starts after a write was acknowledged by W replicas sees it when R + W > N.
//
// Expiring cells get their local deletion time from the coordinator's clock;
// each replica then judges liveness and compaction by its own clock, and a
// read judges the merged cells by its coordinator's clock, as a Cassandra read
// command carries its coordinator's nowInSec.
//
// A Cluster is not safe for concurrent use: a scheduler drives it from one
// goroutine.
type Cluster struct {
	cfg      ClusterConfig
	base     lockstep.Clock
	skews    []time.Duration
	replicas []*Store
	pending  []Message
	nextID   uint64
	cut      map[[2]int]bool // links cut between data centres (dc.go)
}

// Mutation is one coordinator write: the same cells sent to every replica.
type Mutation struct {
	ID    uint64
	Table string
	Row   string
	Cells []StoredCell
	// Applied records which replicas applied it so far.
	Applied []bool
	// Coord is the replica that coordinates it: a message to a replica it
	// cannot reach across a DC partition waits (dc.go).
	Coord int
}

// Acks is how many replicas have applied m.
func (m *Mutation) Acks() int {
	n := 0
	for _, a := range m.Applied {
		if a {
			n++
		}
	}
	return n
}

// Message is a mutation on its way to one replica.
type Message struct {
	Mutation *Mutation
	Replica  int
}

// NewCluster returns an empty cluster whose replicas read base plus their
// skew (initially zero). It panics on an invalid configuration.
func NewCluster(base lockstep.Clock, cfg ClusterConfig) *Cluster {
	cfg = cfg.withDefaults()
	if cfg.Replicas < 1 || cfg.W < 1 || cfg.W > cfg.Replicas || cfg.R < 1 || cfg.R > cfg.Replicas ||
		len(cfg.DCs) != 0 && len(cfg.DCs) != cfg.Replicas {
		panic(fmt.Sprintf("model: invalid cluster %+v", cfg))
	}
	c := &Cluster{cfg: cfg, base: base, skews: make([]time.Duration, cfg.Replicas)}
	for i := range cfg.Replicas {
		c.replicas = append(c.replicas, New(replicaClock{c, i}, WithGCGrace(cfg.GCGrace)))
	}
	return c
}

// replicaClock is replica i's clock: the base clock plus its skew.
type replicaClock struct {
	c *Cluster
	i int
}

func (r replicaClock) Now() int64 { return r.c.base.Now() + r.c.skews[r.i].Microseconds() }

func (r replicaClock) Elapsed() int64 { return r.c.base.Elapsed() }

func (r replicaClock) Sleep(ctx context.Context, d time.Duration) error {
	return r.c.base.Sleep(ctx, d)
}

// Config returns the cluster's configuration with defaults applied.
func (c *Cluster) Config() ClusterConfig { return c.cfg }

// Replica returns replica i's store.
func (c *Cluster) Replica(i int) *Store { return c.replicas[i] }

// SetReplicaSkew sets how far replica i's clock reads ahead of the base
// clock (behind, if negative).
func (c *Cluster) SetReplicaSkew(i int, d time.Duration) { c.skews[i] = d }

// ReplicaNow returns replica i's clock in microseconds.
func (c *Cluster) ReplicaNow(i int) int64 { return replicaClock{c, i}.Now() }

// Prepare turns a client's cells into the stored cells coordinator coord
// sends: expiring cells expire TTL after the coordinator's current second. It
// returns an error wrapping ErrInvalidCell for a TTL the store refuses.
func (c *Cluster) Prepare(coord int, cells []lockstep.Cell) ([]StoredCell, error) {
	now := secondsOf(c.ReplicaNow(coord))
	out := make([]StoredCell, len(cells))
	for i, cell := range cells {
		ttl, err := ttlSeconds(cell)
		if err != nil {
			return nil, err
		}
		if ttl == 0 {
			out[i] = LiveCell(cell.Column, cloneBytes(cell.Value), cell.Timestamp)
		} else {
			out[i] = ExpiringCell(cell.Column, cloneBytes(cell.Value), cell.Timestamp, ttl, now)
		}
	}
	return out, nil
}

// PrepareDelete returns the tombstones coordinator coord sends for columns,
// dated at its current second.
func (c *Cluster) PrepareDelete(coord int, ts int64, columns []string) []StoredCell {
	now := secondsOf(c.ReplicaNow(coord))
	out := make([]StoredCell, len(columns))
	for i, col := range columns {
		out[i] = TombstoneCell(col, ts, now)
	}
	return out
}

// Write starts a mutation of cells to the partition row of table: the
// replicas listed in now apply it at once, and a Message to each other
// replica joins Pending, to be delivered or dropped later.
func (c *Cluster) Write(table, row string, cells []StoredCell, now []int) *Mutation {
	c.nextID++
	m := &Mutation{ID: c.nextID, Table: table, Row: row, Cells: cells, Applied: make([]bool, c.cfg.Replicas)}
	for _, i := range now {
		c.apply(m, i)
	}
	for i := range c.cfg.Replicas {
		if !m.Applied[i] {
			c.pending = append(c.pending, Message{Mutation: m, Replica: i})
		}
	}
	return m
}

func (c *Cluster) apply(m *Mutation, i int) {
	if m.Applied[i] {
		return
	}
	if err := c.replicas[i].Apply(m.Table, m.Row, m.Cells...); err != nil {
		panic(fmt.Sprintf("model: cluster applying prepared cells: %v", err)) // Prepare validated them
	}
	m.Applied[i] = true
}

// Pending returns the messages not yet delivered or dropped, oldest first.
// The slice is the cluster's own; do not modify it.
func (c *Cluster) Pending() []Message { return c.pending }

// Deliver applies pending message k at its replica and returns it. A
// message its coordinator cannot reach across a DC partition stays pending,
// unapplied.
func (c *Cluster) Deliver(k int) Message {
	msg := c.pending[k]
	if !c.Reachable(msg.Mutation.Coord, msg.Replica) {
		return msg
	}
	c.pending = append(c.pending[:k], c.pending[k+1:]...)
	c.apply(msg.Mutation, msg.Replica)
	return msg
}

// Drop forgets pending message k, as a hint that never arrives, and returns
// it.
func (c *Cluster) Drop(k int) Message {
	msg := c.pending[k]
	c.pending = append(c.pending[:k], c.pending[k+1:]...)
	return msg
}

// DeliverAll delivers every pending message, oldest first, but those that
// wait across a DC partition.
func (c *Cluster) DeliverAll() {
	for k := 0; k < len(c.pending); {
		if c.Reachable(c.pending[k].Mutation.Coord, c.pending[k].Replica) {
			c.Deliver(k)
		} else {
			k++
		}
	}
}
