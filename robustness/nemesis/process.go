package nemesis

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/lockstep-go/lockstep/robustness/cluster"
)

// PauseNode stops node n's JVM with SIGSTOP; Heal sends SIGCONT.
type PauseNode struct {
	c *cluster.Cluster
	n int
}

func NewPauseNode(c *cluster.Cluster, n int) *PauseNode { return &PauseNode{c: c, n: n} }

func (p *PauseNode) Name() string { return fmt.Sprintf("pause-node n%d", p.n) }

func (p *PauseNode) Inject(context.Context) error { return p.signal(syscall.SIGSTOP) }

func (p *PauseNode) Heal(context.Context) error { return p.signal(syscall.SIGCONT) }

func (p *PauseNode) signal(s syscall.Signal) error {
	pid, err := p.c.PID(p.n)
	if err != nil {
		if s == syscall.SIGCONT {
			return nil // not running: nothing is stopped
		}
		return err
	}
	if err := syscall.Kill(pid, s); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("nemesis: %v node %d (pid %d): %w", s, p.n, pid, err)
	}
	return nil
}

// KillNode crashes node n (SIGKILL); Heal starts it again and waits until
// the cluster sees it.
type KillNode struct {
	c *cluster.Cluster
	n int
}

func NewKillNode(c *cluster.Cluster, n int) *KillNode { return &KillNode{c: c, n: n} }

func (k *KillNode) Name() string { return fmt.Sprintf("kill-node n%d", k.n) }

func (k *KillNode) Inject(ctx context.Context) error {
	if !k.c.Running(k.n) {
		return nil
	}
	return k.c.Kill(ctx, k.n)
}

func (k *KillNode) Heal(ctx context.Context) error {
	if k.c.Running(k.n) {
		return nil
	}
	return k.c.Start(ctx, k.n)
}

// PauseClient stops a client (worker) process with SIGSTOP; Heal sends
// SIGCONT. PID is asked at Inject time (the runner picks a live worker);
// the schedule holds it longer than the lock TTL.
type PauseClient struct {
	Label string              // which worker, for the printed schedule
	PID   func() (int, error) // the worker's pid
	pid   int
}

func (p *PauseClient) Name() string { return "pause-client " + p.Label }

func (p *PauseClient) Inject(context.Context) error {
	if p.pid != 0 {
		return nil
	}
	pid, err := p.PID()
	if err != nil {
		return fmt.Errorf("nemesis: pause-client %s: %w", p.Label, err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return fmt.Errorf("nemesis: SIGSTOP client %s (pid %d): %w", p.Label, pid, err)
	}
	p.pid = pid
	return nil
}

func (p *PauseClient) Heal(context.Context) error {
	if p.pid == 0 {
		return nil
	}
	err := syscall.Kill(p.pid, syscall.SIGCONT)
	p.pid = 0
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("nemesis: SIGCONT client %s: %w", p.Label, err)
	}
	return nil
}
