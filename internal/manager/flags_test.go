package manager

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// flagged returns r with flags f.
func flagged(r string, f lockstep.Flags) lockstep.Request {
	q := req(r)
	q.Flags = f
	return q
}

// Flags never change a plan: a request the flags allow is planned as the
// same request without flags, and the members carry no flags.
func TestPlan_FlagsThatHoldChangeNothing(t *testing.T) {
	m, _ := newManager(t, "/")
	for _, c := range []struct {
		req  lockstep.Request
		want []string
	}{
		{flagged("a:S", lockstep.Flat), []string{"a:S"}},
		{flagged("a:X", lockstep.Flat|lockstep.NoMask), []string{"a:X"}},
		{flagged("a/b:S", lockstep.NoMask), []string{"a:IS", "a/b:S"}},
		{flagged("a/*", 0), []string{"a:X"}},
		{flagged("a/*:S", lockstep.Flat), []string{"a:S"}}, // the mask of one name has no ancestors
	} {
		got, err := m.Plan([]lockstep.Request{c.req})
		require.NoError(t, err, "%v", c.req)
		assert.Equal(t, c.want, strs(got), "%v", c.req)
	}
	flat, _ := newManager(t, "")
	for _, r := range []lockstep.Request{flagged("a/b", lockstep.Flat), flagged("a/*", lockstep.Flat|lockstep.NoMask)} {
		got, err := flat.Plan([]lockstep.Request{r})
		require.NoError(t, err, "without a separator no id is a path or a mask: %v", r)
		assert.Equal(t, []string{r.ID + ":X"}, strs(got))
	}
}

// A request whose flags disagree with the Locker's reading of its id is
// refused, each case with its own message, and nothing is taken.
func TestLock_FlagsThatDisagreeAreRefused(t *testing.T) {
	l, tab := newManager(t, "/")
	for _, c := range []struct {
		name string
		req  lockstep.Request
		want string
	}{
		{"flat path", flagged("a/b", lockstep.Flat), `"a/b" is declared lockstep.Flat but holds the separator "/"`},
		{"flat mask of a path", flagged("a/b/*:S", lockstep.Flat), `drop lockstep.Flat to lock it as a path`},
		{"no-mask mask", flagged("a/b/*", lockstep.NoMask), `"a/b/*" is declared lockstep.NoMask but ends in the mask segment "*", which names every child of "a/b"`},
		{"unknown bits", flagged("a", 0x80), `flags(0x80) for id "a": use lockstep.Flat, lockstep.NoMask, both or neither`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := l.Group(context.Background(), []lockstep.Request{req("e:S"), c.req}, true)
			require.ErrorIs(t, err, lockstep.ErrInvalidID)
			assert.Contains(t, err.Error(), c.want)
			assert.Contains(t, err.Error(), "request 2 of 2")
			assert.Empty(t, tab.held(), "a refused group takes nothing")
			assert.Zero(t, tab.callCount(), "a refused group asks the store nothing")
		})
	}
	flat, _ := newManager(t, "")
	_, err := flat.Group(context.Background(), []lockstep.Request{flagged("a", 0x04)}, false)
	require.ErrorIs(t, err, lockstep.ErrInvalidID, "unknown bits are refused on a flat Locker too, one request or many")
}

// A flat query of a root id and a hierarchical query below it are
// planned under one reading, so they meet at the root: a holder of "a"
// (flat, X) keeps a writer of "a/b" out, and the other way round.
func TestLock_FlatAndHierarchicalQueriesOfOneIDExcludeEachOther(t *testing.T) {
	l, _ := newManager(t, "/")
	ctx := context.Background()
	root, err := l.Group(ctx, []lockstep.Request{flagged("a", lockstep.Flat|lockstep.NoMask)}, true)
	require.NoError(t, err)
	_, err = l.Group(ctx, reqs("a/b"), true)
	require.ErrorIs(t, err, lockstep.ErrLocked, "a/b's IX on a meets the flat X")
	require.NoError(t, root.Unlock(ctx))

	child, err := l.Group(ctx, reqs("a/b"), true)
	require.NoError(t, err)
	_, err = l.Group(ctx, []lockstep.Request{flagged("a:S", lockstep.Flat)}, true)
	require.ErrorIs(t, err, lockstep.ErrLocked, "the flat S meets a/b's IX on a")
	require.NoError(t, child.Unlock(ctx))
}

// The planted defect FlatPaths takes a flat path as one name: no
// intention lock on its ancestors, so it holds beside a holder of "a".
func TestPlan_FlatPathsKnobSkipsTheAncestors(t *testing.T) {
	m, err := New("/", nil, nil, &TestingKnobs{FlatPaths: true})
	require.NoError(t, err)
	got, err := m.Plan([]lockstep.Request{flagged("a/b/c:S", lockstep.Flat), req("a/b/d")})
	require.NoError(t, err)
	assert.Equal(t, []string{"a:IX", "a/b:IX", "a/b/c:S", "a/b/d:X"}, strs(got), "the other request's intention locks only")
	got, err = m.Plan([]lockstep.Request{flagged("a/b", lockstep.Flat)})
	require.NoError(t, err)
	assert.Equal(t, []string{"a/b:X"}, strs(got))
	got, err = m.Plan([]lockstep.Request{flagged("a/*", lockstep.Flat)})
	require.NoError(t, err)
	assert.Equal(t, []string{"a:X"}, strs(got), "a flat mask of one name, which the rule accepts, is planned as without the knob")
}
