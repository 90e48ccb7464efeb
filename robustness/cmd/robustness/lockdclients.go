package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// How a segment's lockd clients are started: their lockds, their moves
// history, and the Python worker's flags (lockd.go has the lockds).

// addrs are the host:port addresses client dials: its proxy to its own
// lockd, then (a fail-over client) to each other lockd.
func (s *lockdSet) addrs(client string) []string {
	own := s.lockdOf[client] - 1
	out := []string{s.proxies[client][own].Addr()}
	if s.failover[client] {
		for i, px := range s.proxies[client] {
			if i != own {
				out = append(out, px.Addr())
			}
		}
	}
	return out
}

// isPython says whether worker id is a Python lockd worker.
func (s *lockdSet) isPython(id string) bool { return s != nil && s.python[id] }

// movesPath is where fail-over client id records its moves, "" for a
// client that does not fail over.
func (s *lockdSet) movesPath(id string) string {
	if !s.failover[id] {
		return ""
	}
	return filepath.Join(s.dir, history.MovesDir, id+".jsonl")
}

// currentLockd is the lockd client uses now, as far as its moves say: the
// one its last finished move reached, else the one it starts on.
func (s *lockdSet) currentLockd(client string) int {
	n := s.lockdOf[client]
	if !s.failover[client] {
		return n
	}
	ms, err := history.ReadMoves(s.dir)
	if err != nil {
		return n
	}
	for _, m := range ms {
		if m.Process != client || m.To == "" {
			continue
		}
		for i, px := range s.proxies[client] {
			if strings.TrimPrefix(m.To, "http://") == px.Addr() {
				n = i + 1
			}
		}
	}
	return n
}

// movers are the clients given every lockd: a lockd nemesis must cost
// them no lock (the lockd-loss checker).
func (s *lockdSet) movers() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, c := range s.clients {
		if s.failover[c] {
			out = append(out, c)
		}
	}
	return out
}

// workerArgs are the rbworker flags of worker id, nil unless it takes its
// locks through lockd.
func (s *lockdSet) workerArgs(id string) []string {
	if s == nil || s.lockdOf[id] == 0 {
		return nil
	}
	var urls []string
	for _, a := range s.addrs(id) {
		urls = append(urls, "http://"+a)
	}
	args := []string{"--lockd", strings.Join(urls, ","), "--lockd-session-ttl", s.setup.sessionTTL.String()}
	if m := s.movesPath(id); m != "" {
		args = append(args, "--moves-history", m)
	}
	if s.setup.hold > 0 {
		args = append(args, "--hold", s.setup.hold.String(), "--min-hold", s.setup.minHold.String())
	}
	return args
}

// pythonArgs are the Python worker's flags for worker id (robustness/pyworker):
// the lock ids, registers and timing of the segment's workers, its
// lockds, and its planted defect.
func (s *lockdSet) pythonArgs(id, registerURL, history string, locks int, d time.Duration, seed uint64, hold, minHold time.Duration) []string {
	args := []string{"--process", id, "--lockd", strings.Join(s.addrs(id), ","),
		"--lockd-session-ttl", fmt.Sprint(s.setup.sessionTTL.Seconds()), "--register", registerURL, "--history", history,
		"--locks", fmt.Sprint(locks), "--duration", fmt.Sprint(d.Seconds()), "--seed", fmt.Sprint(seed),
		"--hold", fmt.Sprint(hold.Seconds()), "--min-hold", fmt.Sprint(minHold.Seconds()),
		"--epoch-unix-ns", fmt.Sprint(s.r.epoch.UnixNano())}
	if m := s.movesPath(id); m != "" {
		args = append(args, "--moves-history", m)
	}
	if s.setup.pyLockPrefix != "" {
		args = append(args, "--lock-prefix", s.setup.pyLockPrefix, "--locks", fmt.Sprint(s.setup.pyLocks))
	}
	if s.setup.pyPlant != "" {
		args = append(args, "--plant", s.setup.pyPlant)
	}
	return args
}

// pythonClients says whether any of segs runs a Python lockd worker: the
// run then makes the Python worker's venv.
func pythonClients(segs []segment) bool {
	for _, s := range segs {
		if s.lockd.python > 0 {
			return true
		}
	}
	return false
}
