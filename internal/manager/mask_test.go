package manager

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// A mask "p/*" is planned as p itself in the mask's access, below the
// intention locks of p's ancestors, and joined with the group's other
// requests like any request of p.
func TestPlan_MaskTakesItsParent(t *testing.T) {
	m, _ := newManager(t, "/")
	for _, c := range []struct {
		reqs []string
		want []string
	}{
		{[]string{"a/*"}, []string{"a:X"}},
		{[]string{"a/b/*:S"}, []string{"a:IS", "a/b:S"}},
		{[]string{"a/b/*:S", "a/b:IX"}, []string{"a:IX", "a/b:SIX"}},
		{[]string{"a/b/*", "a/b/c"}, []string{"a:IX", "a/b:X", "a/b/c:X"}},
	} {
		got, err := m.Plan(reqs(c.reqs...))
		require.NoError(t, err, "%v", c.reqs)
		assert.Equal(t, c.want, strs(got), "%v", c.reqs)
	}
}

func TestPlan_MaskOnlyAsTheLastSegmentAfterAnother(t *testing.T) {
	m, _ := newManager(t, "/")
	for id, where := range map[string]string{"*": "alone", "a/*/b": "before other segments", "*/a": "before other segments"} {
		_, err := m.Plan([]lockstep.Request{{ID: id}})
		require.ErrorIs(t, err, lockstep.ErrInvalidID, id)
		assert.Contains(t, err.Error(), `the mask segment "*" `+where, id)
		assert.Contains(t, err.Error(), `("a/*")`, id)
	}
	flat, _ := newManager(t, "")
	got, err := flat.Plan(reqs("a/*"))
	require.NoError(t, err)
	assert.Equal(t, []string{"a/*:X"}, strs(got), "without a separator \"*\" is a character of the id")
	_, err = m.Plan(reqs("a/b*", "a*/b"))
	require.NoError(t, err, "a segment merely containing * is an ordinary name")
}

// A mask in an intention access is refused, whatever the rest of the
// group: held as its parent in that access it would not exclude a child's
// holder in X (IX on the parent). The error names the mask, the accesses a
// mask may take, and the parent to take instead.
func TestPlan_MaskInAnIntentionAccessIsRefused(t *testing.T) {
	m, _ := newManager(t, "/")
	for _, c := range [][]string{{"a/*:IS"}, {"a/b/*:IX"}, {"a/*:SIX"}, {"a/c:X", "a/b/*:IS"}} {
		_, err := m.Plan(reqs(c...))
		require.ErrorIs(t, err, lockstep.ErrInvalidID, "%v", c)
		assert.Contains(t, err.Error(), "may be taken only Shared or Exclusive", "%v", c)
		assert.Contains(t, err.Error(), "lockstep.Shared or lockstep.Exclusive", "%v", c)
	}
	_, err := m.Plan(reqs("a/b/*:IX"))
	assert.Contains(t, err.Error(), `or for the parent "a/b" itself in IX`)
	for _, ok := range []string{"a/*:S", "a/*:X", "a:IS", "a/b*:IX"} {
		_, err := m.Plan(reqs(ok))
		require.NoError(t, err, ok)
	}
}

// The planted defect MaskIntention restores the refused plan: the mask's
// parent in the intention access.
func TestPlan_MaskIntentionKnobTakesTheParentInTheIntentionAccess(t *testing.T) {
	m, err := New("/", nil, nil, &TestingKnobs{MaskIntention: true})
	require.NoError(t, err)
	got, err := m.Plan(reqs("a/b/*:IS"))
	require.NoError(t, err)
	assert.Equal(t, []string{"a:IS", "a/b:IS"}, strs(got))
}
