package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/lockstep-go/lockstep/robustness/nemesis"
)

// What the lockd nemeses act on: a lockdSet is their nemesis.Lockds
// (Clients, Holding, Kill, Restart, Signal, Cut, Restore); strike notes
// when one strikes, for its event's From (lockdevents.go), and heal undoes
// whatever they left.

var _ nemesis.Lockds = (*lockdSet)(nil)

// strike notes that a lockd nemesis strikes now.
func (s *lockdSet) strike() {
	s.mu.Lock()
	s.struck = time.Now()
	s.mu.Unlock()
}

// Clients, Holding, Kill, Restart, Signal, Cut and Restore are
// nemesis.Lockds. Clients are those using lockd n now: a fail-over client
// is on the lockd its last move reached (currentLockd), so that a strike
// waits for, and hits, the clients that are there.
func (s *lockdSet) Clients(n int) []string {
	var out []string
	for _, c := range s.clients {
		if s.currentLockd(c) == n {
			out = append(out, c)
		}
	}
	return out
}

// Holding: the client's history ends in a successful acquire — with
// setup.fresh, one that returned within the last second, so that a nemesis
// striking now finds most of the hold ahead.
func (s *lockdSet) Holding(client string) bool {
	if s.setup.fresh {
		return holdingSince(s.history[client], time.Since(s.r.epoch).Nanoseconds()-int64(time.Second))
	}
	return holding(s.history[client])
}

func (s *lockdSet) Kill(n int) error {
	p := s.procs[n-1]
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return nil
	}
	s.strike()
	_ = cmd.Process.Signal(syscall.SIGCONT)
	if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("kill lockd l%d: %w", n, err)
	}
	<-done
	return nil
}

func (s *lockdSet) Restart(ctx context.Context, n int) error {
	p := s.procs[n-1]
	if p.running() {
		return nil
	}
	return s.launch(ctx, p)
}

func (s *lockdSet) Signal(n int, sig syscall.Signal) error {
	p := s.procs[n-1]
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return fmt.Errorf("lockd l%d not started", n)
	}
	if sig == syscall.SIGSTOP {
		s.strike()
	}
	if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("%v lockd l%d: %w", sig, n, err)
	}
	return nil
}

// Cut cuts client off from its own lockd (the one it starts on); a
// fail-over client's proxies to the other lockds keep forwarding.
func (s *lockdSet) Cut(client string) error {
	pxs, ok := s.proxies[client]
	if !ok {
		return fmt.Errorf("no proxy for client %s", client)
	}
	s.strike()
	pxs[s.lockdOf[client]-1].Cut()
	return nil
}

func (s *lockdSet) Restore(client string) error {
	for _, px := range s.proxies[client] {
		px.Restore()
	}
	return nil
}

// heal undoes whatever a lockd nemesis left: SIGCONT to every lockd, a
// restart of any that is down, every proxy forwarding.
func (s *lockdSet) heal(ctx context.Context) error {
	var errs []error
	for _, p := range s.procs {
		if p.running() {
			errs = append(errs, s.Signal(p.n, syscall.SIGCONT))
			continue
		}
		s.r.logf("restarting lockd l%d", p.n)
		errs = append(errs, s.launch(ctx, p))
	}
	for _, pxs := range s.proxies {
		for _, px := range pxs {
			px.Restore()
		}
	}
	return errors.Join(errs...)
}
