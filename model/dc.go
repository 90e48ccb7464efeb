package model

import "fmt"

// Data centres. A cluster of several data centres (ClusterConfig.DCs) keeps
// each replica in one of them; a request's consistency Level counts the
// replicas that answered it per data centre, as Cassandra's does, for a
// coordinator in a given data centre; and a DC partition cuts every link
// between two data centres until healed: a coordinator cannot reach a
// replica across it, so a message to that replica waits (a hint) and a read
// cannot ask it.

// Level is a consistency level of a request, counted over the replicas that
// applied or answered it.
type Level uint8

const (
	// Count is the zero Level: ClusterConfig.R replicas for a read, W for a
	// write, wherever they are (the cluster of one data centre).
	Count Level = iota
	// Quorum is a majority of all replicas.
	Quorum
	// LocalQuorum is a majority of the coordinator's data centre's replicas.
	LocalQuorum
	// EachQuorum is a majority of every data centre's replicas.
	EachQuorum
	// All is every replica.
	All
)

var levelNames = [...]string{"COUNT", "QUORUM", "LOCAL_QUORUM", "EACH_QUORUM", "ALL"}

// String returns the level's CQL name ("COUNT" for Count).
func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

// DC returns replica i's data centre (0 in a cluster of one).
func (c *Cluster) DC(i int) int {
	if len(c.cfg.DCs) == 0 {
		return 0
	}
	return c.cfg.DCs[i]
}

// Enough reports whether the replicas marked in set satisfy level l for a
// request coordinated in data centre dc; count is the replicas needed at
// Count (R or W).
func (c *Cluster) Enough(l Level, count, dc int, set []bool) bool {
	total, in := map[int]int{}, map[int]int{}
	n := 0
	for i := range c.cfg.Replicas {
		total[c.DC(i)]++
		if set[i] {
			in[c.DC(i)]++
			n++
		}
	}
	switch l {
	case Count:
		return n >= count
	case Quorum:
		return n >= c.cfg.Replicas/2+1
	case LocalQuorum:
		return total[dc] > 0 && in[dc] >= total[dc]/2+1
	case EachQuorum:
		for d, t := range total {
			if in[d] < t/2+1 {
				return false
			}
		}
		return true
	case All:
		return n == c.cfg.Replicas
	}
	return false
}

// PartitionDCs cuts every link between data centres a and b, both ways.
func (c *Cluster) PartitionDCs(a, b int) {
	if c.cut == nil {
		c.cut = map[[2]int]bool{}
	}
	c.cut[[2]int{a, b}], c.cut[[2]int{b, a}] = true, true
}

// HealDCs restores every link PartitionDCs cut, and reports whether any was.
func (c *Cluster) HealDCs() bool {
	was := len(c.cut) > 0
	c.cut = nil
	return was
}

// Partitioned reports whether any link between data centres is cut.
func (c *Cluster) Partitioned() bool { return len(c.cut) > 0 }

// Reachable reports whether replica coord, coordinating a request, reaches
// replica i.
func (c *Cluster) Reachable(coord, i int) bool { return !c.cut[[2]int{c.DC(coord), c.DC(i)}] }
