package check

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/robustness/history"
)

// group records a lock-manager acquisition of members ("<id>:<access>")
// under the hold key lock; times in ms.
func (h *hist) group(p, lock string, inv, ret int64, members ...string) *hist {
	h.recs = append(h.recs, history.Record{Process: p, Lock: lock, Op: history.Acquire, Mode: "new",
		InvokeNS: ms(inv), ReturnNS: ms(ret), Outcome: history.OK, LeaseDeadlineNS: ms(inv) + window, LeaseWindowNS: window,
		Members: members})
	return h
}

func accessViolations(r Report) []Violation {
	var out []Violation
	for _, v := range r.Violations {
		if v.Checker == "access" {
			out = append(out, v)
		}
	}
	return out
}

func TestAccess_ConflictingOverlapsAreFlagged(t *testing.T) {
	cases := []struct {
		name string
		a, b []string
		why  string
	}{
		{"S against X on one id", []string{"L:S"}, []string{"L:X"}, "L:S against L:X"},
		{"X on the parent against S on a child", []string{"L:X"}, []string{"L/a:S"}, "L:X against L/a:S (which implies IS on L)"},
		{"S on the parent against X on a child", []string{"L/a:X"}, []string{"L:S"}, "L/a:X (which implies IX on L) against L:S"},
		{"X on a grandparent", []string{"L:X"}, []string{"L/a/b:IS"}, "implies IS on L"},
		{"SIX against IX", []string{"L:SIX"}, []string{"L:IX"}, "L:SIX against L:IX"},
		{"a group member", []string{"M:S", "L/b:S"}, []string{"L/a:X", "L/b:X"}, "L/b:S against L/b:X"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := new(hist).
				group("a", "ka", 0, 10, c.a...).
				group("b", "kb", 5, 300, c.b...). // a holds until 400
				release("a", "ka", 400, 410).
				release("b", "kb", 500, 510)
			vs := accessViolations(h.check(t, Options{}))
			require.Len(t, vs, 1)
			assert.Equal(t, "ka & kb", vs[0].Lock)
			assert.Contains(t, vs[0].Detail, c.why)
			assert.Contains(t, vs[0].Detail, "a (new) held")
		})
	}
}

func TestAccess_PlainExclusiveAgainstItsChildIsFlagged(t *testing.T) {
	// A plain Lock of "L" and a hierarchical Lock of "L/a" (no members
	// recorded: one exclusive request each) — what a manager skipping the
	// intention lock on "L" lets happen. The mutex model sees two ids.
	h := new(hist).
		acquire("a", "L", 1, 0, 10).
		acquire("b", "L/a", 2, 5, 300).
		release("a", "L", 400, 410).
		release("b", "L/a", 500, 510)
	r := h.check(t, Options{})
	vs := accessViolations(r)
	require.Len(t, vs, 1, r.Summary())
	assert.Contains(t, vs[0].Detail, "L:X against L/a:X (which implies IX on L)")
	assert.Len(t, r.Violations, 1, "the mutex model judges each id alone: %s", r.Summary())
}

func TestAccess_CompatibleOrDisjointHoldsPass(t *testing.T) {
	h := new(hist).
		// readers share an id, and a reader below it
		group("a", "L", 0, 10, "L:S").
		group("b", "L", 5, 20, "L:S").
		group("c", "L/a", 6, 30, "L/a:S").
		// writers below L once its readers left, beside the reader of L/a
		group("d", "L/b", 7, 140, "L/b:X").
		group("e", "L/c", 8, 150, "L/c:X").
		release("a", "L", 100, 110).
		release("b", "L", 100, 110).
		release("d", "L/b", 150, 160).
		// a group of readers of children once d released L/b
		group("a", "L/b+L/a", 125, 200, "L/b:S", "L/a:S").
		release("c", "L/a", 300, 310).
		release("e", "L/c", 300, 310).
		release("a", "L/b+L/a", 320, 330).
		// X on the parent after every hold below it ended
		acquire("b", "L", 7, 325, 400).
		// ids that only share leading characters are not related
		acquire("c", "L2", 8, 450, 460).
		release("b", "L", 500, 510).
		group("d", "L/z", 455, 520, "L/z:X").
		release("c", "L2", 600, 610).
		release("d", "L/z", 600, 610)
	r := h.check(t, Options{})
	mustPass(t, r)
	// a–b, a–c, b–c meet on L; c–d, c–e, the group with c and with e meet
	// under L; d–e touch only at an instant; L2 is no relative of L.
	assert.Equal(t, 7, r.Shared)
}

func TestAccess_AHoldWhoseLeaseHadLapsedDoesNotConflict(t *testing.T) {
	// a's lease was lost at its deadline 1000; b's S hold begins after it.
	h := new(hist).
		group("a", "L", 0, 10, "L:X").
		lost("a", "L", 1000, 1500).
		group("b", "L/a", 900, 1100, "L/a:S").
		release("a", "L", 1500, 1510).
		release("b", "L/a", 1600, 1610)
	mustPass(t, h.check(t, Options{}))
}

func TestAccess_MatrixAgreesWithTheLibrary(t *testing.T) {
	// The checker keeps its own copy of the matrix; the library's is the
	// other implementation of one published table, so they must agree.
	for _, x := range history.Accesses {
		for _, y := range history.Accesses {
			a, err := lockstep.ParseAccess(x)
			require.NoError(t, err)
			b, err := lockstep.ParseAccess(y)
			require.NoError(t, err)
			assert.Equal(t, a.Compatible(b), compatible(x, y), "%s vs %s", x, y)
		}
		a, _ := lockstep.ParseAccess(x)
		assert.Equal(t, a.Intention().String(), intention(x), "intention of %s", x)
	}
}

func TestAccess_BadMemberIsRefused(t *testing.T) {
	h := new(hist).group("a", "L", 0, 10, "L:Q")
	_, err := Records(h.recs, nil, Options{})
	require.ErrorContains(t, err, `unknown access "Q"`)
}
