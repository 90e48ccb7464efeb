package nemesis

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/lockstep-go/lockstep/robustness/cluster"
)

// StoragePort is the port every node listens on for its peers.
const StoragePort = 7000

// CQLPort is the port every node serves clients on.
const CQLPort = 9042

// EnsureNft installs nftables with apt-get when the nft command is missing
// (CI machines are fresh); it needs root.
func EnsureNft(ctx context.Context) error {
	if _, err := exec.LookPath("nft"); err == nil {
		return nil
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("nemesis: nft is missing and apt-get is not available; install nftables")
	}
	out, err := exec.CommandContext(ctx, "apt-get", "install", "-y", "-q", "nftables").CombinedOutput()
	if err != nil {
		return fmt.Errorf("nemesis: apt-get install nftables: %w: %s", err, tail(out))
	}
	return nil
}

func tail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	return s
}

// cgroupMatch is the nftables expression matching packets sent by sockets
// of node n's cgroup (cgroupPathMatch).
func cgroupMatch(n cluster.Node) (string, error) {
	m, err := cgroupPathMatch(n.CGroup2)
	if err != nil {
		return "", fmt.Errorf("nemesis: node %d: %w", n.N, err)
	}
	return m, nil
}

// cgroupPathMatch is the nftables expression matching packets sent by
// sockets of the cgroup v2 at path. nft resolves the path below
// /sys/fs/cgroup and compares the socket's cgroup ancestor at the given
// level (depth below the cgroup2 mount).
func cgroupPathMatch(path string) (string, error) {
	rel, ok := strings.CutPrefix(path, "/sys/fs/cgroup/")
	if !ok {
		return "", fmt.Errorf("cgroup %s is not below /sys/fs/cgroup, where nft looks for cgroupv2 paths", path)
	}
	mount, err := cgroup2Mount()
	if err != nil {
		return "", err
	}
	below, err := filepath.Rel(mount, path)
	if err != nil || strings.HasPrefix(below, "..") {
		return "", fmt.Errorf("cgroup %s is not below the cgroup2 mount %s", path, mount)
	}
	level := len(strings.Split(below, "/"))
	return fmt.Sprintf("socket cgroupv2 level %d %q", level, rel), nil
}

func cgroup2Mount() (string, error) {
	f, err := os.Open("/proc/mounts")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) >= 3 && w[2] == "cgroup2" {
			return w[1], nil
		}
	}
	return "", fmt.Errorf("nemesis: no cgroup2 file system mounted")
}

// nftApply replaces table (family inet) by one output chain holding rules.
func nftApply(ctx context.Context, table string, rules []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "table inet %s {}\ndelete table inet %s\n", table, table)
	fmt.Fprintf(&b, "table inet %s {\n\tchain out {\n\t\ttype filter hook output priority 0; policy accept;\n", table)
	for _, r := range rules {
		fmt.Fprintf(&b, "\t\t%s\n", r)
	}
	b.WriteString("\t}\n}\n")
	cmd := exec.CommandContext(ctx, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(b.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("nemesis: nft table %s: %w: %s\n%s", table, err, tail(out), b.String())
	}
	return nil
}

// nftDelete deletes table (family inet) if it exists.
func nftDelete(ctx context.Context, table string) error {
	script := fmt.Sprintf("table inet %s {}\ndelete table inet %s\n", table, table)
	cmd := exec.CommandContext(ctx, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("nemesis: nft delete table %s: %w: %s", table, err, tail(out))
	}
	return nil
}

// nftTables lists the inet tables.
func nftTables(ctx context.Context) ([]string, error) {
	if _, err := exec.LookPath("nft"); err != nil {
		return nil, nil // nothing can be left behind without nft
	}
	out, err := exec.CommandContext(ctx, "nft", "list", "tables", "inet").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("nemesis: nft list tables: %w: %s", err, tail(out))
	}
	var ts []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) == 3 && w[0] == "table" && w[1] == "inet" {
			ts = append(ts, w[2])
		}
	}
	return ts, nil
}

// Tables lists the nftables tables the nemeses of cluster c have in place
// (empty after Heal or Cleanup).
func Tables(ctx context.Context, c *cluster.Cluster) ([]string, error) {
	all, err := nftTables(ctx)
	var mine []string
	for _, t := range all {
		if ownTable(tablePrefix(c), t) {
			mine = append(mine, t)
		}
	}
	return mine, err
}
