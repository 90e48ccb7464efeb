package cluster

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Config says which cluster to drive. Every field has a default.
type Config struct {
	// Repo is the repository root holding scripts/cassandra (default: found
	// by walking up from the working directory).
	Repo string
	// IPOffset shifts the node addresses: nodes run on 127.0.0.(IPOffset+N)
	// (default 60, the suite's own offset).
	IPOffset int
	// Dir is the state directory (default /tmp/lockstep-robustness).
	Dir string
	// CGroup names the cgroup parent of the nodes (default
	// "lockstep-robust<IPOffset>").
	CGroup string
	// Heap per node (default 1G).
	Heap string
	// Log receives the script's output (default os.Stderr).
	Log io.Writer
	// DCs is the number of data centres: 1 (the default) or 2, dc1 (nodes 1
	// and 2) and dc2 (node 3), as scripts/cassandra up --dcs 2 lays them out.
	DCs int
}

// Node is one Cassandra node of the cluster.
type Node struct {
	N         int    // 1-based
	IP        string // listen, rpc and storage address
	CGroup2   string // absolute path of its cgroup v2 (nftables matches it)
	CPUGroup  string // absolute path of the cgroup whose CPU quota slows it
	ClockFile string // the OffsetClock offset file
	DC        string // its data centre: "dc1" with one, "dc1" or "dc2" with two
}

// Cluster is a 3-node cluster started by scripts/cassandra.
type Cluster struct {
	cfg   Config
	Nodes []Node
}

// Size is the number of nodes the suite runs.
const Size = 3

var cgroupName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// New checks cfg, fills in defaults and returns the cluster (not started).
func New(cfg Config) (*Cluster, error) {
	if cfg.Repo == "" {
		r, err := FindRepo()
		if err != nil {
			return nil, err
		}
		cfg.Repo = r
	}
	if _, err := os.Stat(filepath.Join(cfg.Repo, "scripts", "cassandra")); err != nil {
		return nil, fmt.Errorf("cluster: %s/scripts/cassandra not found; set Config.Repo to the repository root", cfg.Repo)
	}
	if cfg.IPOffset == 0 {
		cfg.IPOffset = 60
	}
	if cfg.IPOffset < 1 || cfg.IPOffset > 250 {
		return nil, fmt.Errorf("cluster: IP offset %d outside 1..250 (0 is the lead's cluster and is refused)", cfg.IPOffset)
	}
	if cfg.Dir == "" {
		cfg.Dir = "/tmp/lockstep-robustness"
	}
	if cfg.Dir == "/tmp/lockstep-cassandra" {
		return nil, errors.New("cluster: state dir /tmp/lockstep-cassandra belongs to the default cluster; choose another")
	}
	if cfg.CGroup == "" {
		cfg.CGroup = fmt.Sprintf("lockstep-robust%d", cfg.IPOffset)
	}
	if !cgroupName.MatchString(cfg.CGroup) {
		return nil, fmt.Errorf("cluster: cgroup name %q: use letters, digits, - or _", cfg.CGroup)
	}
	if cfg.Heap == "" {
		cfg.Heap = "1G"
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	if cfg.DCs == 0 {
		cfg.DCs = 1
	}
	if cfg.DCs != 1 && cfg.DCs != 2 {
		return nil, fmt.Errorf("cluster: %d data centres: give 1 or 2 (2: dc1 = nodes 1 and 2, dc2 = node 3)", cfg.DCs)
	}
	c := &Cluster{cfg: cfg}
	for n := 1; n <= Size; n++ {
		c.Nodes = append(c.Nodes, Node{N: n, IP: fmt.Sprintf("127.0.0.%d", cfg.IPOffset+n), DC: nodeDC(cfg.DCs, n)})
	}
	return c, nil
}

// FindRepo walks up from the working directory to the directory holding
// scripts/cassandra.
func FindRepo() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "scripts", "cassandra")); err == nil {
			return d, nil
		}
		p := filepath.Dir(d)
		if p == d {
			return "", errors.New("cluster: no scripts/cassandra above the working directory; run from the repository or set Config.Repo")
		}
		d = p
	}
}

// Config returns the configuration in effect (defaults filled in).
func (c *Cluster) Config() Config { return c.cfg }

// Hosts are the CQL contact points, one per node.
func (c *Cluster) Hosts() []string {
	h := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		h[i] = n.IP
	}
	return h
}

// Node returns node n (1-based) or an error naming the valid range.
func (c *Cluster) Node(n int) (Node, error) {
	if n < 1 || n > len(c.Nodes) {
		return Node{}, fmt.Errorf("cluster: node %d outside 1..%d", n, len(c.Nodes))
	}
	return c.Nodes[n-1], nil
}

func (c *Cluster) env() []string {
	return append(os.Environ(),
		"LOCKSTEP_CASSANDRA_IP_OFFSET="+strconv.Itoa(c.cfg.IPOffset),
		"LOCKSTEP_CASSANDRA_DIR="+c.cfg.Dir,
		"LOCKSTEP_CASSANDRA_CGROUP="+c.cfg.CGroup,
		"LOCKSTEP_CASSANDRA_SKEW_CLOCK=1",
		"LOCKSTEP_CASSANDRA_HEAP="+c.cfg.Heap,
	)
}

// script runs scripts/cassandra with args; its output goes to the log.
func (c *Cluster) script(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.cfg.Repo, "scripts", "cassandra"), args...)
	cmd.Env = c.env()
	cmd.Stdout, cmd.Stderr = c.cfg.Log, c.cfg.Log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("cluster: scripts/cassandra %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// Up starts a fresh 3-node cluster (wiping the state dir), in Config.DCs
// data centres, and loads every node's cgroups and clock file.
func (c *Cluster) Up(ctx context.Context) error {
	if err := c.script(ctx, "up", "--nodes", strconv.Itoa(Size), "--dcs", strconv.Itoa(c.cfg.DCs)); err != nil {
		return err
	}
	return c.Load(ctx)
}

// Load reads the node details of a running cluster from `scripts/cassandra
// env` (for attaching to a cluster started earlier), its data centres
// included: a cluster started with --dcs 2 is loaded as two.
func (c *Cluster) Load(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.cfg.Repo, "scripts", "cassandra"), "env")
	cmd.Env = c.env()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, c.cfg.Log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("cluster: scripts/cassandra env: %w", err)
	}
	vars := map[string]string{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok {
			vars[k] = strings.Trim(v, "'")
		}
	}
	switch dcs := vars["LOCKSTEP_CASSANDRA_DCS"]; {
	case dcs == "dc1,dc2":
		c.cfg.DCs = 2
	case dcs != "":
		return fmt.Errorf("cluster: %s has data centres %q; the suite knows one, or dc1,dc2", c.cfg.Dir, dcs)
	case c.cfg.DCs == 2:
		return fmt.Errorf("cluster: %s is one data centre, not two; start it with scripts/cassandra up --nodes 3 --dcs 2", c.cfg.Dir)
	}
	for i := range c.Nodes {
		n := i + 1
		c.Nodes[i].DC = nodeDC(c.cfg.DCs, n)
		cgs := strings.Split(vars[fmt.Sprintf("LOCKSTEP_CASSANDRA_CGROUPS_%d", n)], ",")
		if cgs[0] == "" {
			return fmt.Errorf("cluster: %s has no cgroups for node %d; start it with Up (LOCKSTEP_CASSANDRA_CGROUP)", c.cfg.Dir, n)
		}
		c.Nodes[i].CGroup2 = cgs[0]
		c.Nodes[i].CPUGroup = cgs[len(cgs)-1]
		c.Nodes[i].ClockFile = vars[fmt.Sprintf("LOCKSTEP_CASSANDRA_CLOCK_FILE_%d", n)]
		if c.Nodes[i].ClockFile == "" {
			return fmt.Errorf("cluster: %s has no clock file for node %d; start it with Up (LOCKSTEP_CASSANDRA_SKEW_CLOCK=1)", c.cfg.Dir, n)
		}
	}
	return nil
}

// Down stops every node and removes the cgroups (idempotent).
func (c *Cluster) Down(ctx context.Context) error { return c.script(ctx, "down") }

// Kill crashes node n (SIGKILL); its data stays.
func (c *Cluster) Kill(ctx context.Context, n int) error {
	if _, err := c.Node(n); err != nil {
		return err
	}
	return c.script(ctx, "kill", strconv.Itoa(n))
}

// Start starts node n again and waits until it and the running nodes see
// each other.
func (c *Cluster) Start(ctx context.Context, n int) error {
	if _, err := c.Node(n); err != nil {
		return err
	}
	return c.script(ctx, "start", strconv.Itoa(n))
}

// Running reports whether node n's JVM runs.
func (c *Cluster) Running(n int) bool {
	_, err := c.PID(n)
	return err == nil
}

// PID is the pid of node n's JVM, checked against its command line.
func (c *Cluster) PID(n int) (int, error) {
	if _, err := c.Node(n); err != nil {
		return 0, err
	}
	dir := filepath.Join(c.cfg.Dir, fmt.Sprintf("node%d", n))
	b, err := os.ReadFile(filepath.Join(dir, "cassandra.pid"))
	if err != nil {
		return 0, fmt.Errorf("cluster: node %d is not running (%v)", n, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("cluster: node %d: bad pid file: %v", n, err)
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !bytes.Contains(cmdline, []byte("-Dcassandra.config=file://"+dir+"/conf/cassandra.yaml")) {
		return 0, fmt.Errorf("cluster: node %d is not running (pid %d is not its JVM)", n, pid)
	}
	return pid, nil
}

// Nodetool runs nodetool against node n and returns its output.
func (c *Cluster) Nodetool(ctx context.Context, n int, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(c.cfg.Repo, "scripts", "cassandra"), append([]string{"nodetool", strconv.Itoa(n)}, args...)...)
	cmd.Env = c.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("cluster: nodetool %d %s: %w: %s", n, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}
