package nemesis

import (
	"context"
	"fmt"
	"strings"

	"github.com/lockstep-go/lockstep/robustness/cluster"
)

// DCPartition cuts the cluster's two data centres apart, both ways: every
// storage link between a node of dc1 and a node of dc2 (as Halves cuts
// them), and every client connection from a data centre's client cgroup
// (cluster.ClientGroup: the runner starts a DC fleet's workers there) to the
// other data centre's nodes. Workers outside those cgroups (the fleets of no
// data centre) keep reaching every node, as clients in a third place would.
// With dc1 = nodes 1 and 2 and dc2 = node 3 (RF dc1: 2, dc2: 1), dc1 keeps
// a QUORUM of every row and dc2 does not: global locks go on in dc1 only,
// DC-local locks in both. Heal deletes the table.
type DCPartition struct {
	c     *cluster.Cluster
	table string
}

// NewDCPartition returns the partition of c's data centres; c must have
// two.
func NewDCPartition(c *cluster.Cluster) (*DCPartition, error) {
	if len(c.DCs()) != 2 {
		return nil, fmt.Errorf("nemesis: dc-partition needs a cluster of two data centres (robustness --dcs 2); this one has %v", c.DCs())
	}
	return &DCPartition{c: c, table: tablePrefix(c) + "_dcpart"}, nil
}

// Name says which data centres are cut apart and how the nodes fall.
func (p *DCPartition) Name() string {
	var sides []string
	for _, dc := range p.c.DCs() {
		var ns []string
		for _, n := range p.c.NodesIn(dc) {
			ns = append(ns, fmt.Sprintf("n%d", n))
		}
		sides = append(sides, dc+"("+strings.Join(ns, ",")+")")
	}
	return "dc-partition " + strings.Join(sides, "|")
}

// Cuts are the directed storage links the partition drops.
func (p *DCPartition) Cuts() []Cut {
	var cuts []Cut
	dcs := p.c.DCs()
	for _, a := range p.c.NodesIn(dcs[0]) {
		for _, b := range p.c.NodesIn(dcs[1]) {
			cuts = append(cuts, both(a, b)...)
		}
	}
	return cuts
}

// rules are the node cuts and the client cuts.
func (p *DCPartition) rules() ([]string, error) {
	rules, err := linkRules(p.c, p.Cuts(), "")
	if err != nil {
		return nil, err
	}
	dcs := p.c.DCs()
	for i, dc := range dcs {
		other := dcs[1-i]
		g, err := p.c.ClientGroup(dc)
		if err != nil {
			return nil, err
		}
		m, err := cgroupPathMatch(g)
		if err != nil {
			return nil, fmt.Errorf("nemesis: clients of %s: %w", dc, err)
		}
		for _, ip := range p.c.HostsIn(other) {
			rules = append(rules, fmt.Sprintf("%s ip daddr %s tcp dport %d counter drop", m, ip, CQLPort))
		}
	}
	return rules, nil
}

// Inject installs the partition. The client cgroups must exist
// (cluster.MakeClientGroups): nft resolves their paths when it loads the
// rules.
func (p *DCPartition) Inject(ctx context.Context) error {
	rules, err := p.rules()
	if err != nil {
		return err
	}
	return nftApply(ctx, p.table, rules)
}

// Heal deletes the partition's table.
func (p *DCPartition) Heal(ctx context.Context) error { return nftDelete(ctx, p.table) }
