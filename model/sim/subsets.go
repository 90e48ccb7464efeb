package sim

import (
	"math/bits"

	"github.com/lockstep-go/lockstep/model"
)

// subsets returns the subsets of {0..n-1} as index lists, ordered by size
// (smallest first, or largest first if desc) and then lexicographically by
// bit pattern.
func subsets(n int, keep func(size int) bool, desc bool) [][]int {
	var out [][]int
	for size := 0; size <= n; size++ {
		sz := size
		if desc {
			sz = n - size
		}
		if !keep(sz) {
			continue
		}
		for mask := 0; mask < 1<<n; mask++ {
			if bits.OnesCount(uint(mask)) != sz {
				continue
			}
			var set []int
			for i := range n {
				if mask&(1<<i) != 0 {
					set = append(set, i)
				}
			}
			out = append(out, set)
		}
	}
	return out
}

// readSets are the read sets of p's request coordinated by replica coord:
// the R-replica sets, or at p's read level the minimal sets coord reaches
// that satisfy it (ok false if none does).
func (s *Sim) readSets(p *Process, coord int) (sets [][]int, ok bool) {
	if p.read != model.Count {
		return s.levelSets(coord, p.read, true)
	}
	cfg := s.cluster.Config()
	return subsets(cfg.Replicas, func(k int) bool { return k == cfg.R }, false), true
}

// writeSets are the sets of replicas that apply a write of p at once: every
// replica first (the benign choice), then the sets of W or more, then the
// smaller ones, which leave the writer waiting for deliveries. At p's write
// level, the sets are those its coordinator coord reaches, those that
// satisfy the level first (ok false if none does).
func (s *Sim) writeSets(p *Process, coord int) (sets [][]int, ok bool) {
	if p.write != model.Count {
		return s.levelSets(coord, p.write, false)
	}
	cfg := s.cluster.Config()
	out := subsets(cfg.Replicas, func(k int) bool { return k >= cfg.W }, true)
	return append(out, subsets(cfg.Replicas, func(k int) bool { return k < cfg.W }, true)...), true
}

// allSets are the sets of replicas a timed-out write of p reached: none
// first. At p's write level, only replicas its coordinator coord reaches.
func (s *Sim) allSets(p *Process, coord int) [][]int {
	all := subsets(s.cluster.Config().Replicas, func(int) bool { return true }, false)
	if p.write == model.Count {
		return all
	}
	var out [][]int
	for _, set := range all {
		ok := true
		for _, i := range set {
			ok = ok && s.cluster.Reachable(coord, i)
		}
		if ok {
			out = append(out, set)
		}
	}
	return out
}
