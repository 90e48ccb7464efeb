package nemesis

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/lockstep-go/lockstep/robustness/cluster"
)

// Cut is one direction of a link: messages From → To are dropped.
type Cut struct{ From, To int }

// Partition drops the storage messages of a set of directed cuts. Build one
// with Isolate, Bridge, Halves or OneWay.
type Partition struct {
	c     *cluster.Cluster
	name  string
	cuts  []Cut
	table string
}

func newPartition(c *cluster.Cluster, name string, cuts []Cut) *Partition {
	sort.Slice(cuts, func(i, j int) bool {
		if cuts[i].From != cuts[j].From {
			return cuts[i].From < cuts[j].From
		}
		return cuts[i].To < cuts[j].To
	})
	return &Partition{c: c, name: name, cuts: cuts, table: tablePrefix(c) + "_part"}
}

// both returns the cuts a↔b.
func both(a, b int) []Cut { return []Cut{{a, b}, {b, a}} }

// Isolate cuts node n off from every other node, both ways.
func Isolate(c *cluster.Cluster, n int) *Partition {
	var cuts []Cut
	for _, o := range c.Nodes {
		if o.N != n {
			cuts = append(cuts, both(n, o.N)...)
		}
	}
	return newPartition(c, fmt.Sprintf("isolate(n%d)", n), cuts)
}

// Bridge cuts a and b apart; every other node still talks to both (with 3
// nodes: the third is the bridge).
func Bridge(c *cluster.Cluster, a, b int) *Partition {
	return newPartition(c, fmt.Sprintf("bridge(n%d|n%d)", a, b), both(a, b))
}

// Halves splits the nodes into side and the rest, both ways.
func Halves(c *cluster.Cluster, side []int) *Partition {
	in := map[int]bool{}
	for _, n := range side {
		in[n] = true
	}
	var cuts []Cut
	var rest []string
	for _, a := range c.Nodes {
		if !in[a.N] {
			rest = append(rest, fmt.Sprintf("n%d", a.N))
			continue
		}
		for _, b := range c.Nodes {
			if !in[b.N] {
				cuts = append(cuts, both(a.N, b.N)...)
			}
		}
	}
	var s []string
	for _, n := range side {
		s = append(s, fmt.Sprintf("n%d", n))
	}
	return newPartition(c, fmt.Sprintf("halves(%s|%s)", strings.Join(s, ","), strings.Join(rest, ",")), cuts)
}

// OneWay drops the messages from → to only; to's messages still reach from.
func OneWay(c *cluster.Cluster, from, to int) *Partition {
	return newPartition(c, fmt.Sprintf("one-way(n%d->n%d)", from, to), []Cut{{from, to}})
}

// Name says the shape, e.g. "partition isolate(n2)".
func (p *Partition) Name() string { return "partition " + p.name }

// Cuts are the directed links this partition drops.
func (p *Partition) Cuts() []Cut { return append([]Cut(nil), p.cuts...) }

// Inject installs the partition (replacing any partition of this cluster).
func (p *Partition) Inject(ctx context.Context) error {
	rules, err := linkRules(p.c, p.cuts, "")
	if err != nil {
		return err
	}
	return nftApply(ctx, p.table, rules)
}

// Heal deletes the partition table.
func (p *Partition) Heal(ctx context.Context) error { return nftDelete(ctx, p.table) }

// linkRules: one drop rule per cut; extra is a further match (e.g. numgen).
func linkRules(c *cluster.Cluster, cuts []Cut, extra string) ([]string, error) {
	var rules []string
	for _, k := range cuts {
		from, err := c.Node(k.From)
		if err != nil {
			return nil, err
		}
		to, err := c.Node(k.To)
		if err != nil {
			return nil, err
		}
		if k.From == k.To {
			return nil, fmt.Errorf("nemesis: cut n%d->n%d: a node cannot be cut from itself", k.From, k.To)
		}
		m, err := cgroupMatch(from)
		if err != nil {
			return nil, err
		}
		rules = append(rules, strings.Join(strings.Fields(fmt.Sprintf("%s ip daddr %s tcp dport %d %s counter drop", m, to.IP, StoragePort, extra)), " "))
	}
	return rules, nil
}

// Loss drops a share of the packets on the link a↔b, both ways.
type Loss struct {
	c       *cluster.Cluster
	a, b    int
	percent int
	table   string
}

// NewLoss drops percent (1..100) of the storage packets between a and b.
func NewLoss(c *cluster.Cluster, a, b, percent int) (*Loss, error) {
	if percent < 1 || percent > 100 {
		return nil, fmt.Errorf("nemesis: loss of %d%%: give 1..100", percent)
	}
	if a == b {
		return nil, fmt.Errorf("nemesis: loss on n%d->n%d: a link needs two nodes", a, b)
	}
	return &Loss{c: c, a: a, b: b, percent: percent, table: tablePrefix(c) + "_loss"}, nil
}

func (l *Loss) Name() string { return fmt.Sprintf("loss %d%% n%d<->n%d", l.percent, l.a, l.b) }

func (l *Loss) Inject(ctx context.Context) error {
	rules, err := linkRules(l.c, both(l.a, l.b), fmt.Sprintf("numgen random mod 100 < %d", l.percent))
	if err != nil {
		return err
	}
	return nftApply(ctx, l.table, rules)
}

func (l *Loss) Heal(ctx context.Context) error { return nftDelete(ctx, l.table) }
