package sim

import "math/bits"

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

// readSets are the R-replica read sets.
func (s *Sim) readSets() [][]int {
	cfg := s.cluster.Config()
	return subsets(cfg.Replicas, func(k int) bool { return k == cfg.R }, false)
}

// writeSets are the sets of replicas that apply a write at once: every
// replica first (the benign choice), then the sets of W or more, then the
// smaller ones, which leave the writer waiting for deliveries.
func (s *Sim) writeSets() [][]int {
	cfg := s.cluster.Config()
	out := subsets(cfg.Replicas, func(k int) bool { return k >= cfg.W }, true)
	return append(out, subsets(cfg.Replicas, func(k int) bool { return k < cfg.W }, true)...)
}

// allSets are the sets of replicas a timed-out write reached: none first.
func (s *Sim) allSets() [][]int {
	return subsets(s.cluster.Config().Replicas, func(int) bool { return true }, false)
}
