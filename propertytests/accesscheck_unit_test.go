package propertytests

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// Hand-made holdings and waits for the lock-manager fleets' properties
// (accesscheck_test.go): each must flag what it is meant to, and nothing
// else, before the fleets lean on it.

func req(id string, a lockstep.Access) lockstep.Request { return lockstep.Request{ID: id, Access: a} }

const (
	rX   = lockstep.Exclusive
	rS   = lockstep.Shared
	rIS  = lockstep.IntentShared
	rIX  = lockstep.IntentExclusive
	rSIX = lockstep.SharedIntentExclusive
)

func TestAccessCheck_AncestorsOutermostFirst(t *testing.T) {
	assert.Equal(t, []string{"a", "a/b"}, ancestors("a/b/d", "/"))
	assert.Empty(t, ancestors("a", "/"))
	assert.Empty(t, ancestors("a/b", ""), "flat ids have no ancestors")
	assert.Equal(t, []string{"a", "a::b"}, ancestors("a::b::c", "::"))
}

func TestAccessCheck_ImpliedAddsIntentionsAndJoins(t *testing.T) {
	assert.Equal(t, map[string]lockstep.Access{"a": rIX, "a/b": rX}, implied([]lockstep.Request{req("a/b", rX)}, "/"))
	assert.Equal(t, map[string]lockstep.Access{"a": rIS, "a/b": rIS, "a/b/d": rS}, implied([]lockstep.Request{req("a/b/d", rS)}, "/"))
	// S on "a" and X below it: one acquisition of "a" must serve S and IX.
	assert.Equal(t, map[string]lockstep.Access{"a": rSIX, "a/c": rX}, implied([]lockstep.Request{req("a", rS), req("a/c", rX)}, "/"))
	assert.Equal(t, map[string]lockstep.Access{"a": rX}, implied([]lockstep.Request{req("a", rS), req("a", rX)}, "/"))
	assert.Equal(t, map[string]lockstep.Access{"a/b": rX}, implied([]lockstep.Request{req("a/b", rX)}, ""), "flat ids imply nothing")
}

func TestAccessCheck_FirstMemberIsTheCanonicalFirst(t *testing.T) {
	assert.Equal(t, req("a", rIX), firstMember(implied([]lockstep.Request{req("e", rS), req("a/b", rX)}, "/")))
	assert.Equal(t, req("a", rX), firstMember(implied([]lockstep.Request{req("e", rS), req("a", rX)}, "/")))
}

func TestAccessCheck_ExclusionByWhatWasAskedWithAncestorsImplied(t *testing.T) {
	holds := func(reqs ...lockstep.Request) grant { return grant{who: "p", reqs: reqs} }
	conflicting := []struct{ a, b grant }{
		{holds(req("a/b", rX)), holds(req("a", rS))},
		{holds(req("a/b", rX)), holds(req("a", rX))},
		{holds(req("a/b", rX)), holds(req("a/b/d", rIS))},
		{holds(req("a/b", rX)), holds(req("a/b/d", rS))},
		{holds(req("a/b", rS)), holds(req("a/b/d", rX))},
		{holds(req("a", rX)), holds(req("a/c", rIS))},
		{holds(req("a", rSIX)), holds(req("a/b", rX))},
		{holds(req("e", rX)), holds(req("a", rS), req("e", rS))},
	}
	for i, c := range conflicting {
		err := checkAccessExclusion([]grant{c.a, c.b}, "/")
		require.Error(t, err, "case %d: %v against %v", i, c.a.reqs, c.b.reqs)
		assert.Contains(t, err.Error(), "mutual exclusion:")
	}
	assert.NoError(t, checkAccessExclusion([]grant{holds(req("a", rS)), holds(req("a", rS), req("e", rX))}, "/"), "S and S share a")

	compatible := []struct{ a, b grant }{
		{holds(req("a/b", rX)), holds(req("a/c", rX))},
		{holds(req("a/b", rS)), holds(req("a/b/d", rS))},
		{holds(req("a", rIX)), holds(req("a/b", rS))},
		{holds(req("a", rSIX)), holds(req("a/b", rIS))},
		{holds(req("a/b/d", rX)), holds(req("e", rX))},
	}
	for i, c := range compatible {
		assert.NoError(t, checkAccessExclusion([]grant{c.a, c.b}, "/"), "case %d: %v against %v", i, c.a.reqs, c.b.reqs)
	}
	// Without a hierarchy "a" and "a/b" are unrelated ids.
	assert.NoError(t, checkAccessExclusion([]grant{holds(req("a/b", rX)), holds(req("a", rX))}, ""))
	// Three holders: the conflict between the second and third is found.
	err := checkAccessExclusion([]grant{{"p0", []lockstep.Request{req("e", rS)}}, {"p1", []lockstep.Request{req("a/b", rS)}}, {"p2", []lockstep.Request{req("a", rIX)}}}, "/")
	assert.NoError(t, err, "IS and IX on a share")
	err = checkAccessExclusion([]grant{{"p0", []lockstep.Request{req("e", rS)}}, {"p1", []lockstep.Request{req("a/b", rS)}}, {"p2", []lockstep.Request{req("a", rX)}}}, "/")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `p1 holds`)
	assert.Contains(t, err.Error(), `p2 holds`)
	assert.Contains(t, err.Error(), `"a" asked for in IS and X`)
}

// A skipped intention lock: the Locker took only "a/b":X for p1's request,
// not IX on "a", so p2's "a":S was granted beside it. Judged by the members
// taken, the two look compatible; judged by what p1 asked for, they are not.
func TestAccessCheck_SkippedIntentionIsCaught(t *testing.T) {
	membersTaken := []grant{{"p1", []lockstep.Request{req("a/b", rX)}}, {"p2", []lockstep.Request{req("a", rS)}}}
	assert.NoError(t, checkAccessExclusion(membersTaken, ""), "member by member, as a flat check sees it")
	assert.Error(t, checkAccessExclusion(membersTaken, "/"), "by the requests, ancestors implied")
}

func TestAccessCheck_OvertakingIsLaterAndIncompatibleAtTheFirstMember(t *testing.T) {
	w := newGroupWait([]lockstep.Request{req("a/b", rX)}, "/", 100, true) // first member a:IX
	assert.Equal(t, req("a", rIX), w.first)
	assert.Equal(t, 2, w.members)
	assert.True(t, overtakes(w, implied([]lockstep.Request{req("a", rS)}, "/"), 101), "a later reader of a")
	assert.False(t, overtakes(w, implied([]lockstep.Request{req("a", rS)}, "/"), 100), "not later")
	assert.False(t, overtakes(w, implied([]lockstep.Request{req("a", rS)}, "/"), 99), "earlier in line")
	assert.False(t, overtakes(w, implied([]lockstep.Request{req("a/c", rX)}, "/"), 101), "IX and IX on a: compatible")
	assert.False(t, overtakes(w, implied([]lockstep.Request{req("a/b", rS)}, "/"), 101),
		"IS and IX on a share; a/b is a later member w has not queued for yet")
	assert.False(t, overtakes(w, implied([]lockstep.Request{req("e", rX)}, "/"), 101), "another id")

	writer := newGroupWait([]lockstep.Request{req("a", rX)}, "/", 100, true)
	for i := range bypassBound(3) {
		writer.overtakes++
		require.NoError(t, checkBypass("p0", writer, 3), "overtaken %d times", i+1)
	}
	writer.overtakes++
	err := checkBypass("p0", writer, 3)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "overtaken 5 times")
	writer.quiet = false
	assert.NoError(t, checkBypass("p0", writer, 3), "a wait that began before the quiet phase is not bounded")
}

func TestAccessCheck_GroupWaitBoundScalesWithThePlan(t *testing.T) {
	w := newGroupWait([]lockstep.Request{req("a/b/d", rX), req("e", rS)}, "/", 0, true) // a, a/b, a/b/d, e
	require.Equal(t, 4, w.members)
	bound := groupWaitBound(4)
	assert.NoError(t, checkGroupWait("p0", w, 0, bound))
	err := checkGroupWait("p0", w, 0, bound+1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a plan of 4 members")
	// Counted from the start of the quiet phase for a wait begun before it.
	assert.NoError(t, checkGroupWait("p0", w, 1_000_000, bound+1))
}

// A mask asks for its access on every child of its parent, named or not:
// the oracle compares it with every child the other side asks for, its
// intention locks included, and with the other side's masks and parent.
func TestAccessCheck_AMaskConflictsWithEveryChildItNames(t *testing.T) {
	hold := func(rs ...lockstep.Request) map[string]lockstep.Access { return implied(rs, "/") }
	all := []lockstep.Access{rX, rS, rIS, rIX, rSIX}
	for _, ma := range all {
		for _, ca := range all {
			for _, maskFirst := range []bool{true, false} {
				a, b := hold(req("a/*", ma)), hold(req("a/c", ca))
				if !maskFirst {
					a, b = b, a
				}
				c, ok := conflict(a, b, "/")
				assert.Equal(t, !ma.Compatible(ca), ok, "a/*:%v beside a/c:%v", ma, ca)
				if ok {
					assert.Equal(t, "a/c", c.id)
				}
			}
		}
	}
	_, ok := conflict(hold(req("a/*", rS)), hold(req("a/c/d", rX)), "/")
	assert.True(t, ok, "a grandchild's writer takes IX on the child the mask names")
	_, ok = conflict(hold(req("a/*", rS)), hold(req("a/b/*", rX)), "/")
	assert.True(t, ok, "a mask below names a child of the mask above in IX")
	_, ok = conflict(hold(req("a/*", rS)), hold(req("a", rIX)), "/")
	assert.False(t, ok, "IX on the parent names no child")
	_, ok = conflict(hold(req("a/*", rS)), hold(req("a", rX)), "/")
	assert.True(t, ok, "the parent's writer, by the mask's IS on the parent")
	_, ok = conflict(hold(req("a/*", rX)), hold(req("e/c", rX)), "/")
	assert.False(t, ok, "another tree")
	_, ok = conflict(hold(req("a/*", rX)), hold(req("a*", rX)), "/")
	assert.False(t, ok, "a sibling whose name merely starts like the parent")
	assert.False(t, isMask("*", "/"), "* alone names no parent")
	assert.False(t, isMask("a/*", ""), "without a separator * is a character")
}
