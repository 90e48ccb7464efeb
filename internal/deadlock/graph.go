package deadlock

import (
	"slices"

	"github.com/lockstep-go/lockstep"
)

// ranksBelow reports whether r ranks below o: (Start, Name) ascending. The
// victim of a cycle is its member of highest rank.
func (r *Record) ranksBelow(o *Record) bool {
	if r.Start != o.Start {
		return r.Start < o.Start
	}
	return r.Name < o.Name
}

// blocker returns the hold of s that r waits for in an incompatible
// access, if any: the edge r → s.
func blocker(r, s *Record) (Hold, bool) {
	if r.Name == s.Name {
		return Hold{}, false
	}
	for _, h := range s.Holds {
		if h.ID == r.Waits.ID && !h.Access.Compatible(r.Waits.Access) {
			return h, true
		}
	}
	return Hold{}, false
}

// Victim returns the member of cycle of highest rank: the one every process
// that sees the cycle picks to fail.
func Victim(cycle []Record) Record {
	v := 0
	for i := range cycle {
		if cycle[v].ranksBelow(&cycle[i]) {
			v = i
		}
	}
	return cycle[v]
}

// VictimCycle returns a cycle of recs through the record named self of
// which self is the victim — every other member ranks below it — starting
// with self, each member waiting for an id the next one holds; or nil.
func VictimCycle(recs []Record, self string) []Record {
	at := slices.IndexFunc(recs, func(r Record) bool { return r.Name == self })
	if at < 0 {
		return nil
	}
	me := &recs[at]
	below := func(r *Record) bool { return r.ranksBelow(me) }
	// Depth-first search from self over records ranked below it, back to
	// self. path holds indexes; seen marks records already explored (a
	// record from which self was not reached cannot reach it later).
	seen := make([]bool, len(recs))
	var path []int
	var dfs func(i int) bool
	dfs = func(i int) bool {
		path = append(path, i)
		for j := range recs {
			if _, ok := blocker(&recs[i], &recs[j]); !ok {
				continue
			}
			if j == at {
				return true
			}
			if seen[j] || !below(&recs[j]) {
				continue
			}
			seen[j] = true
			if dfs(j) {
				return true
			}
		}
		path = path[:len(path)-1]
		return false
	}
	seen[at] = true
	if !dfs(at) {
		return nil
	}
	out := make([]Record, len(path))
	for k, i := range path {
		out[k] = recs[i]
	}
	return out
}

// bystander is the planted defect Knobs.Bystander: a cycle among the
// records ranked below self's, not through it, reported with self first as
// if it were a member.
func bystander(recs []Record, self string) []Record {
	at := slices.IndexFunc(recs, func(r Record) bool { return r.Name == self })
	if at < 0 {
		return nil
	}
	me := &recs[at]
	for i := range recs {
		if i == at || !recs[i].ranksBelow(me) {
			continue
		}
		var below []Record
		for j := range recs {
			if j != at && recs[j].ranksBelow(me) {
				below = append(below, recs[j])
			}
		}
		if c := VictimCycle(below, recs[i].Name); c != nil {
			return append([]Record{*me}, c...)
		}
	}
	return nil
}

// Members renders a cycle (as VictimCycle returns it) as the members of a
// lockstep.DeadlockError.
func Members(cycle []Record) []lockstep.DeadlockMember {
	out := make([]lockstep.DeadlockMember, len(cycle))
	for k := range cycle {
		next := &cycle[(k+1)%len(cycle)]
		h, _ := blocker(&cycle[k], next)
		out[k] = lockstep.DeadlockMember{Process: cycle[k].Process, Waits: cycle[k].Waits,
			HeldBy: h.Owner, HeldIn: h.Access, Comment: cycle[k].Comment}
	}
	return out
}
