package deadlock

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/lockstep-go/lockstep"
)

// rec is a record named name, started at start, waiting for wait
// ("id:access") and holding holds.
func rec(name string, start int64, wait string, holds ...string) Record {
	r := Record{Name: name, Process: "p-" + name, Start: start, Waits: req(wait)}
	for _, h := range holds {
		q := req(h)
		r.Holds = append(r.Holds, Hold{ID: q.ID, Access: q.Access, Owner: "o-" + name})
	}
	return r
}

func req(s string) lockstep.Request {
	var id, a string
	if _, err := fmt.Sscanf(s, "%1s:%s", &id, &a); err != nil {
		id, a = s, "X"
	}
	acc, err := lockstep.ParseAccess(a)
	if err != nil {
		panic(err)
	}
	return lockstep.Request{ID: id, Access: acc}
}

func names(c []Record) []string {
	out := []string{}
	for _, r := range c {
		out = append(out, r.Name)
	}
	return out
}

func TestVictimCycle_Table(t *testing.T) {
	pair := []Record{rec("p", 1, "b", "a"), rec("q", 2, "a", "b")}
	for _, c := range []struct {
		name string
		recs []Record
		self string
		want []string // nil: not the victim of any cycle
	}{
		{"the later of a pair is its victim", pair, "q", []string{"q", "p"}},
		{"the earlier of a pair is not", pair, "p", nil},
		{"equal starts: the larger name", []Record{rec("p", 1, "b", "a"), rec("q", 1, "a", "b")}, "q", []string{"q", "p"}},
		{"a triangle's latest", []Record{rec("p", 3, "b", "a"), rec("q", 1, "c", "b"), rec("r", 2, "a", "c")}, "p", []string{"p", "q", "r"}},
		{"a triangle's others", []Record{rec("p", 3, "b", "a"), rec("q", 1, "c", "b"), rec("r", 2, "a", "c")}, "r", nil},
		{"compatible accesses make no edge", []Record{rec("p", 1, "b:S", "a"), rec("q", 2, "a", "b:S")}, "q", nil},
		{"intention locks on one ancestor make no edge", []Record{rec("p", 1, "r:IX", "a"), rec("q", 2, "a", "r:IX")}, "q", nil},
		{"S waits for an IX holder", []Record{rec("p", 1, "r:S", "a"), rec("q", 2, "a", "r:IX")}, "q", []string{"q", "p"}},
		{"a chain is no cycle", []Record{rec("p", 1, "b", "a"), rec("q", 2, "c", "b")}, "q", nil},
		{"a record never waits for itself", []Record{rec("p", 1, "a:S", "a:X")}, "p", nil},
		{"a later cycle elsewhere is not mine", []Record{rec("p", 1, "b", "a"), rec("q", 2, "a", "b"), rec("s", 9, "b")}, "s", nil},
		{"not among the records", pair, "z", nil},
		// The victim's cycle may pass only through records ranked below it:
		// here q's only way back runs through the later s.
		{"only through lower ranks", []Record{rec("q", 2, "c", "b"), rec("s", 9, "b", "c")}, "q", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := VictimCycle(c.recs, c.self)
			if c.want == nil {
				assert.Nil(t, got)
				return
			}
			assert.Equal(t, c.want, names(got))
			assert.Equal(t, c.self, Victim(got).Name)
		})
	}
}

func TestMembers_FollowTheCycle(t *testing.T) {
	c := VictimCycle([]Record{rec("p", 1, "b", "a"), rec("q", 2, "a:S", "b")}, "q")
	c[0].Comment = "mine"
	m := Members(c)
	require.Len(t, m, 2)
	assert.Equal(t, lockstep.DeadlockMember{Process: "p-q", Waits: req("a:S"), HeldBy: "o-p", HeldIn: lockstep.Exclusive, Comment: "mine"}, m[0])
	assert.Equal(t, lockstep.DeadlockMember{Process: "p-p", Waits: req("b"), HeldBy: "o-q", HeldIn: lockstep.Exclusive}, m[1])
}

// Whatever member of a cycle computes it, the victim is the same: exactly
// one member finds itself the victim, the member of highest rank, among
// other records that cannot close a cycle (they hold nothing the cycle
// waits for) and in any order of the records.
func TestVictimCycle_OneVictimWhoeverComputes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 6).Draw(t, "members")
		var recs []Record
		for i := range n {
			next := fmt.Sprintf("id%d", (i+1)%n)
			r := Record{Name: fmt.Sprintf("w%02d", rapid.IntRange(0, 99).Draw(t, "name")) + fmt.Sprint(i),
				Start: int64(rapid.IntRange(0, 3).Draw(t, "start")), Waits: lockstep.Request{ID: next},
				Holds: []Hold{{ID: fmt.Sprintf("id%d", i), Access: lockstep.Exclusive}}}
			recs = append(recs, r)
		}
		cycle := append([]Record(nil), recs...)
		for i := range rapid.IntRange(0, 4).Draw(t, "others") {
			// A waiter for a cycle's id, holding ids no one waits for.
			recs = append(recs, Record{Name: fmt.Sprintf("x%d", i), Start: int64(rapid.IntRange(0, 5).Draw(t, "ostart")),
				Waits: lockstep.Request{ID: fmt.Sprintf("id%d", rapid.IntRange(0, n-1).Draw(t, "owait"))},
				Holds: []Hold{{ID: fmt.Sprintf("free%d", i)}}})
		}
		perm := rapid.Permutation(recs).Draw(t, "order")
		want := Victim(cycle).Name
		var victims []string
		for _, r := range perm {
			if c := VictimCycle(perm, r.Name); c != nil {
				victims = append(victims, r.Name)
				if len(c) != n {
					t.Fatalf("%s found a cycle of %d, want %d", r.Name, len(c), n)
				}
			}
		}
		if len(victims) != 1 || victims[0] != want {
			t.Fatalf("victims %v, want exactly [%s]", victims, want)
		}
	})
}

// A cycle VictimCycle returns is one: each member waits, incompatibly, for
// an id the next holds, and the caller ranks highest — on any records.
func TestVictimCycle_ReturnsARealCycleOfWhichSelfIsTheVictim(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ids := []string{"a", "b", "c", "d"}
		n := rapid.IntRange(1, 7).Draw(t, "records")
		recs := make([]Record, n)
		for i := range recs {
			recs[i] = Record{Name: fmt.Sprint("r", i), Start: int64(rapid.IntRange(0, 3).Draw(t, "start")),
				Waits: lockstep.Request{ID: rapid.SampledFrom(ids).Draw(t, "wait"), Access: lockstep.Access(rapid.IntRange(0, 4).Draw(t, "wa"))}}
			for _, id := range ids {
				if rapid.Bool().Draw(t, "holds") {
					recs[i].Holds = append(recs[i].Holds, Hold{ID: id, Access: lockstep.Access(rapid.IntRange(0, 4).Draw(t, "ha"))})
				}
			}
		}
		for _, self := range recs {
			c := VictimCycle(recs, self.Name)
			if c == nil {
				continue
			}
			if c[0].Name != self.Name || Victim(c).Name != self.Name {
				t.Fatalf("%s returned a cycle it is not the victim of: %v", self.Name, names(c))
			}
			for k := range c {
				if _, ok := blocker(&c[k], &c[(k+1)%len(c)]); !ok {
					t.Fatalf("no edge %s → %s in %v", c[k].Name, c[(k+1)%len(c)].Name, names(c))
				}
			}
		}
	})
}
