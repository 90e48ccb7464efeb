package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// nodeDC is node n's data centre in a cluster of dcs data centres, as
// scripts/cassandra up --dcs lays them out: dc1 holds nodes 1 and 2, dc2
// node 3; with one data centre every node is in dc1 (Cassandra's
// SimpleSnitch names it datacenter1, but nothing here routes by it then).
func nodeDC(dcs, n int) string {
	if dcs == 2 && n == 3 {
		return "dc2"
	}
	return "dc1"
}

// DCs lists the data centres, in order: ["dc1"] or ["dc1", "dc2"].
func (c *Cluster) DCs() []string {
	if c.cfg.DCs == 2 {
		return []string{"dc1", "dc2"}
	}
	return []string{"dc1"}
}

// NodesIn are the numbers of dc's nodes.
func (c *Cluster) NodesIn(dc string) []int {
	var ns []int
	for _, n := range c.Nodes {
		if n.DC == dc {
			ns = append(ns, n.N)
		}
	}
	return ns
}

// HostsIn are the CQL contact points of dc's nodes.
func (c *Cluster) HostsIn(dc string) []string {
	var hs []string
	for _, n := range c.Nodes {
		if n.DC == dc {
			hs = append(hs, n.IP)
		}
	}
	return hs
}

// Replication is the keyspace replication map for lockctl schema apply
// --replication: three replicas, SimpleStrategy on one data centre and
// NetworkTopologyStrategy {dc1: 2, dc2: 1} (one replica per node) on two,
// as cassandra/clustertest creates its keyspaces.
func (c *Cluster) Replication() string {
	if c.cfg.DCs == 2 {
		return "class=NetworkTopologyStrategy,dc1=2,dc2=1"
	}
	return "class=SimpleStrategy,replication_factor=3"
}

// ClientGroup is the cgroup v2 the runner starts dc's worker processes in
// (created by MakeClientGroups), so that nftables can cut them off from
// another data centre's nodes as it cuts the nodes ('socket cgroupv2'). It
// lies beside the nodes' parent cgroup, not below it: scripts/cassandra
// down removes that parent and knows nothing of the clients.
func (c *Cluster) ClientGroup(dc string) (string, error) {
	root, err := cgroup2Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, c.cfg.CGroup+"-clients", dc), nil
}

// MakeClientGroups creates every data centre's client cgroup.
func (c *Cluster) MakeClientGroups() error {
	for _, dc := range c.DCs() {
		g, err := c.ClientGroup(dc)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(g, 0o755); err != nil {
			return fmt.Errorf("cluster: client cgroup %s: %w (run as root)", g, err)
		}
	}
	return nil
}

// OpenClientGroup opens dc's client cgroup directory, for
// syscall.SysProcAttr.CgroupFD: a process started with it is in the cgroup
// before it opens its first socket. The caller closes the file.
func (c *Cluster) OpenClientGroup(dc string) (*os.File, error) {
	g, err := c.ClientGroup(dc)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(g, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, fmt.Errorf("cluster: client cgroup of %s: %w (MakeClientGroups creates it)", dc, err)
	}
	return f, nil
}

// RemoveClientGroups removes the client cgroups and their parent; a cgroup
// with a live process in it stays and is reported. Idempotent.
func (c *Cluster) RemoveClientGroups() error {
	root, err := cgroup2Root()
	if err != nil {
		return nil // no cgroup2: nothing was made
	}
	parent := filepath.Join(root, c.cfg.CGroup+"-clients")
	var errs []error
	for _, dc := range []string{"dc1", "dc2"} {
		g := filepath.Join(parent, dc)
		if err := os.Remove(g); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("cluster: remove client cgroup %s: %w", g, err))
		}
	}
	if err := os.Remove(parent); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, fmt.Errorf("cluster: remove client cgroup %s: %w", parent, err))
	}
	return errors.Join(errs...)
}

// ClientGroupsLeft lists the client cgroups still present (for teardown).
func (c *Cluster) ClientGroupsLeft() []string {
	root, err := cgroup2Root()
	if err != nil {
		return nil
	}
	parent := filepath.Join(root, c.cfg.CGroup+"-clients")
	var left []string
	for _, g := range []string{filepath.Join(parent, "dc1"), filepath.Join(parent, "dc2"), parent} {
		if _, err := os.Stat(g); err == nil {
			left = append(left, g)
		}
	}
	return left
}

// cgroup2Root is where the cgroup2 file system is mounted.
func cgroup2Root() (string, error) {
	b, err := os.ReadFile("/proc/mounts")
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n") {
		w := strings.Fields(l)
		if len(w) >= 3 && w[2] == "cgroup2" {
			return w[1], nil
		}
	}
	return "", errors.New("cluster: no cgroup2 file system mounted")
}
