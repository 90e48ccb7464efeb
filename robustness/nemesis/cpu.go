package nemesis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lockstep-go/lockstep/robustness/cluster"
)

// Slow caps node n's CPU at percent of one core through its cgroup's CPU
// quota; Heal removes the quota.
type Slow struct {
	c       *cluster.Cluster
	n       int
	percent int
}

// NewSlow caps node n at percent (1..100) of one core.
func NewSlow(c *cluster.Cluster, n, percent int) (*Slow, error) {
	if percent < 1 || percent > 100 {
		return nil, fmt.Errorf("nemesis: slow to %d%% of a core: give 1..100", percent)
	}
	return &Slow{c: c, n: n, percent: percent}, nil
}

func (s *Slow) Name() string { return fmt.Sprintf("slow n%d %d%%cpu", s.n, s.percent) }

func (s *Slow) Inject(context.Context) error {
	node, err := s.c.Node(s.n)
	if err != nil {
		return err
	}
	return setQuota(node.CPUGroup, s.percent)
}

func (s *Slow) Heal(context.Context) error {
	node, err := s.c.Node(s.n)
	if err != nil {
		return err
	}
	return setQuota(node.CPUGroup, 0)
}

const cpuPeriodUs = 100000

// setQuota sets percent of one core as the group's quota; 0 removes it.
// A v1 cpu group has cpu.cfs_quota_us, a v2 group cpu.max.
func setQuota(group string, percent int) error {
	if group == "" {
		return fmt.Errorf("nemesis: no CPU cgroup: start the cluster with LOCKSTEP_CASSANDRA_CGROUP")
	}
	if _, err := os.Stat(filepath.Join(group, "cpu.cfs_quota_us")); err == nil {
		q := "-1"
		if percent > 0 {
			q = fmt.Sprint(cpuPeriodUs * percent / 100)
		}
		if err := os.WriteFile(filepath.Join(group, "cpu.cfs_period_us"), []byte(fmt.Sprint(cpuPeriodUs)), 0o644); err != nil {
			return fmt.Errorf("nemesis: cpu period: %w", err)
		}
		if err := os.WriteFile(filepath.Join(group, "cpu.cfs_quota_us"), []byte(q), 0o644); err != nil {
			return fmt.Errorf("nemesis: cpu quota: %w", err)
		}
		return nil
	}
	if _, err := os.Stat(filepath.Join(group, "cpu.max")); err == nil {
		q := "max"
		if percent > 0 {
			q = fmt.Sprint(cpuPeriodUs * percent / 100)
		}
		if err := os.WriteFile(filepath.Join(group, "cpu.max"), []byte(fmt.Sprintf("%s %d", q, cpuPeriodUs)), 0o644); err != nil {
			return fmt.Errorf("nemesis: cpu.max: %w", err)
		}
		return nil
	}
	return fmt.Errorf("nemesis: %s has neither cpu.cfs_quota_us nor cpu.max (is the cpu controller enabled?)", group)
}
