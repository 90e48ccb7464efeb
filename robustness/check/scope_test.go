package check

import (
	"testing"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// placed stamps every record with its worker's data centre (dc1-… and
// dc2-… processes) and the scope its key names, as rbworker records them.
func (h *hist) placed() *hist {
	for i, r := range h.recs {
		h.recs[i].DC = r.Process[:3]
		h.recs[i].Scope = history.ScopeGlobal
		if _, _, ok := history.SplitLocal(r.Lock); ok {
			h.recs[i].Scope = history.ScopeLocal
		}
	}
	return h
}

// The per-scope judgement has teeth: a global lock held in dc1 and in dc2
// at once is a violation; so are two holders of one DC-local lock within a
// data centre; one DC-local id held in each data centre at once is not.
func TestScopes_GlobalAcrossDataCentresLocalWithinOne(t *testing.T) {
	local1, local2 := history.LocalKey("local-0", "dc1"), history.LocalKey("local-0", "dc2")

	acrossGlobal := (&hist{}).
		acquire("dc1-w0", "lock-0", 1, 0, 10).acquire("dc2-w1", "lock-0", 2, 20, 30).
		release("dc1-w0", "lock-0", 500, 510).release("dc2-w1", "lock-0", 600, 610).placed()
	mustFlag(t, acrossGlobal.check(t, Options{}), "mutex", "dc1-w0")

	withinLocal := (&hist{}).
		acquire("dc1-w0", local1, 1, 0, 10).acquire("dc1-w2", local1, 2, 20, 30).
		release("dc1-w0", local1, 500, 510).release("dc1-w2", local1, 600, 610).placed()
	mustFlag(t, withinLocal.check(t, Options{}), "mutex", "dc1-w0")

	acrossLocal := (&hist{}).
		acquire("dc1-w0", local1, 1, 0, 10).acquire("dc2-w1", local2, 1, 20, 30).
		release("dc1-w0", local1, 500, 510).release("dc2-w1", local2, 600, 610).placed()
	r := acrossLocal.check(t, Options{})
	mustPass(t, r)
	if len(r.Scopes) != 4 || r.Scopes[2] != (ScopeCount{Scope: "local", DC: "dc1", Holds: 1}) {
		t.Fatalf("counts %v: want global and local for dc1 and dc2, one local hold in each", r.Scopes)
	}
}

// A worker of dc2 taking dc1's DC-local lock, or a global record under a
// local key, is a scope violation.
func TestScopes_ALocalLockIsTakenInItsOwnDataCentreOnly(t *testing.T) {
	h := (&hist{}).acquire("dc2-w1", history.LocalKey("local-0", "dc1"), 1, 0, 10).
		release("dc2-w1", history.LocalKey("local-0", "dc1"), 100, 110).placed()
	mustFlag(t, h.check(t, Options{}), "scope", `by a worker in "dc2"`)

	h = (&hist{}).acquire("dc1-w0", history.LocalKey("local-0", "dc1"), 1, 0, 10).placed()
	h.recs[0].Scope = history.ScopeGlobal
	mustFlag(t, h.check(t, Options{}), "scope", "global record with a DC-local key")
}

// During DC partitions each data centre must take DC-local locks
// (LocalProgress); the counts say which acquisitions returned inside a
// partition.
func TestScopes_LocalProgressOnBothSidesOfAPartition(t *testing.T) {
	local1, local2 := history.LocalKey("local-0", "dc1"), history.LocalKey("local-0", "dc2")
	part := []Span{{From: ms(100), To: ms(300)}}
	both := (&hist{}).
		acquire("dc1-w0", local1, 1, 90, 150).release("dc1-w0", local1, 160, 170).
		acquire("dc2-w1", local2, 1, 90, 200).release("dc2-w1", local2, 210, 220).
		acquire("dc2-w1", "lock-0", 2, 400, 410).release("dc2-w1", "lock-0", 420, 430).placed()
	r := both.check(t, Options{Partitions: part, LocalProgress: true})
	mustPass(t, r)
	want := map[string]int{"global dc2": 0, "local dc1": 1, "local dc2": 1}
	for _, c := range r.Scopes {
		if n, ok := want[c.Scope+" "+c.DC]; ok && c.InPartition != n {
			t.Errorf("%v: want %d during the partition", c, n)
		}
	}
	onlyDC1 := (&hist{}).
		acquire("dc1-w0", local1, 1, 90, 150).release("dc1-w0", local1, 160, 170).
		acquire("dc2-w1", local2, 1, 350, 360).release("dc2-w1", local2, 370, 380).placed()
	mustFlag(t, onlyDC1.check(t, Options{Partitions: part, LocalProgress: true}), "dc-progress", "dc2")
}
