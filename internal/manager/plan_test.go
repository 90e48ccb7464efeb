package manager

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/lockstep-go/lockstep"
)

func TestPlan_AncestorsTakeTheIntentionOfTheRequest(t *testing.T) {
	m, _ := newManager(t, "/")
	for _, tc := range []struct {
		in   []string
		want []string
	}{
		{[]string{"a/b/c:S"}, []string{"a:IS", "a/b:IS", "a/b/c:S"}},
		{[]string{"a/b/c:X"}, []string{"a:IX", "a/b:IX", "a/b/c:X"}},
		{[]string{"a/b:IS"}, []string{"a:IS", "a/b:IS"}},
		{[]string{"a/b:SIX"}, []string{"a:IX", "a/b:SIX"}},
		{[]string{"a"}, []string{"a:X"}},
	} {
		got, err := m.Plan(reqs(tc.in...))
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, strs(got), tc.in)
	}
}

func TestPlan_JoinsAccessesOfOneID(t *testing.T) {
	m, _ := newManager(t, "/")
	// S on "a" and X below it: S joined with IX is SIX.
	got, err := m.Plan(reqs("a:S", "a/b:X"))
	require.NoError(t, err)
	assert.Equal(t, []string{"a:SIX", "a/b:X"}, strs(got))
	// An id asked twice is taken once, in the Join.
	got, err = m.Plan(reqs("c:IS", "c:S", "c:S", "d/e:S", "d/f:X"))
	require.NoError(t, err)
	assert.Equal(t, []string{"c:S", "d:IX", "d/e:S", "d/f:X"}, strs(got))
}

func TestPlan_SortsBytewiseAndDedupes(t *testing.T) {
	m, _ := newManager(t, "")
	got, err := m.Plan(reqs("c", "a:S", "c:S", "b:IS", "B", "a/b"))
	require.NoError(t, err)
	// Flat ids: "a/b" has no ancestor; uppercase sorts before lowercase.
	assert.Equal(t, []string{"B:X", "a:S", "a/b:X", "b:IS", "c:X"}, strs(got))
}

func TestPlan_DoesNotModifyItsInput(t *testing.T) {
	m, _ := newManager(t, "/")
	in := reqs("z/y:S", "a:X", "z:IS")
	before := slices.Clone(in)
	_, err := m.Plan(in)
	require.NoError(t, err)
	assert.Equal(t, before, in)
}

func TestPlan_MultiByteSeparator(t *testing.T) {
	m, _ := newManager(t, "::")
	got, err := m.Plan([]lockstep.Request{{ID: "x::y:z::w", Access: lockstep.Shared}})
	require.NoError(t, err)
	assert.Equal(t, []lockstep.Request{
		{ID: "x", Access: lockstep.IntentShared},
		{ID: "x::y:z", Access: lockstep.IntentShared},
		{ID: "x::y:z::w", Access: lockstep.Shared},
	}, got)
}

// An ancestor is a proper prefix of its descendant, so it sorts first: the
// hierarchy is locked top-down, whatever other ids the group holds and
// however they compare with the separator ('-' sorts before '/', '0' after).
func TestPlan_AncestorsSortBeforeDescendants(t *testing.T) {
	m, _ := newManager(t, "/")
	rapid.Check(t, func(t *rapid.T) {
		seg := rapid.StringMatching(`[a-c\-0.]{1,2}`)
		id := rapid.Custom(func(t *rapid.T) string {
			return strings.Join(rapid.SliceOfN(seg, 1, 4).Draw(t, "segs"), "/")
		})
		var in []lockstep.Request
		for _, s := range rapid.SliceOfN(id, 1, 6).Draw(t, "ids") {
			in = append(in, lockstep.Request{ID: s, Access: lockstep.Access(rapid.IntRange(0, 4).Draw(t, "access"))})
		}
		plan, err := m.Plan(in)
		require.NoError(t, err)
		pos := map[string]int{}
		for i, r := range plan {
			pos[r.ID] = i
		}
		require.Len(t, pos, len(plan), "an id twice in %v", plan)
		require.True(t, slices.IsSortedFunc(plan, func(a, b lockstep.Request) int { return strings.Compare(a.ID, b.ID) }))
		for _, r := range in {
			p, ok := pos[r.ID]
			require.True(t, ok, "%v missing from %v", r, plan)
			require.True(t, plan[p].Access.Covers(r.Access), "%v taken in %v", r, plan[p].Access)
			for _, anc := range m.ancestors(r.ID) {
				a, ok := pos[anc]
				require.True(t, ok, "ancestor %q of %q missing", anc, r.ID)
				require.Less(t, a, p, "ancestor %q after %q in %v", anc, r.ID, plan)
				require.True(t, plan[a].Access.Covers(r.Access.Intention()))
			}
		}
	})
}

func TestPlan_RefusesBadInputSayingWhatToDo(t *testing.T) {
	m, _ := newManager(t, "/")
	for _, tc := range []struct {
		name string
		in   []lockstep.Request
		is   error
		says string
	}{
		{"empty group", nil, lockstep.ErrInvalidID, "pass at least one Request"},
		{"empty id", []lockstep.Request{{ID: ""}}, lockstep.ErrInvalidID, "a lock id is 1 to"},
		{"NUL", []lockstep.Request{{ID: "a\x00b"}}, lockstep.ErrInvalidID, "NUL"},
		{"long", []lockstep.Request{{ID: strings.Repeat("x", lockstep.MaxIDLen+1)}}, lockstep.ErrInvalidID, "hash longer names"},
		{"access", []lockstep.Request{{ID: "a"}, {ID: "b", Access: 9}}, lockstep.ErrInvalidAccess, "request 2 of 2"},
		{"doubled separator", []lockstep.Request{{ID: "a//b"}}, lockstep.ErrInvalidID, "empty path segment (number 2)"},
		{"leading separator", []lockstep.Request{{ID: "/a"}}, lockstep.ErrInvalidID, "drop the leading, trailing or doubled"},
		{"trailing separator", []lockstep.Request{{ID: "a/"}}, lockstep.ErrInvalidID, "empty path segment (number 2)"},
		{"separator only", []lockstep.Request{{ID: "/"}}, lockstep.ErrInvalidID, "empty path segment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := slices.Clone(tc.in)
			got, err := m.Plan(tc.in)
			require.Error(t, err)
			assert.Nil(t, got)
			assert.ErrorIs(t, err, tc.is)
			assert.Contains(t, err.Error(), tc.says)
			assert.Equal(t, before, tc.in)
		})
	}
	// Without a separator, the same ids are plain names.
	flat, _ := newManager(t, "")
	_, err := flat.Plan(reqs("a//b", "/a", "a/"))
	require.NoError(t, err)
}

func TestNew_RefusesBadSeparator(t *testing.T) {
	for _, sep := range []string{"a\x00", "123456789", "  ", "\t", "\xff"} {
		_, err := New(sep, nil, nil, nil)
		var ce *lockstep.ConfigError
		require.True(t, errors.As(err, &ce), "separator %q: %v", sep, err)
		assert.Equal(t, "Separator", ce.Field)
		assert.ErrorIs(t, err, lockstep.ErrInvalidConfig)
		assert.Contains(t, err.Error(), `such as "/"`)
	}
	for _, sep := range []string{"", "/", ".", "::", "→", "12345678"} {
		m, err := New(sep, nil, nil, nil)
		require.NoError(t, err, sep)
		assert.Equal(t, sep, m.sep)
	}
}

// A separator that can overlap itself ("::") would let an id split into
// segments in two ways: "x:" + "::" + "y" is "x:::y", which the plan reads
// as a child of "x", so an X lock on "x:" would not exclude one on "x:::y".
// Such ids are refused, saying which segment and why; ids whose segments
// keep clear of the separator's parts are planned as before, and a
// separator that cannot overlap itself refuses nothing more.
func TestPlan_SelfOverlappingSeparatorRefusesAmbiguousIDs(t *testing.T) {
	m, _ := newManager(t, "::")
	for id, seg := range map[string]string{"x:": `"x:"`, "x:::y": `":y"`, ":a::b": `":a"`, "a::b:": `"b:"`} {
		before := []lockstep.Request{{ID: id, Access: lockstep.Exclusive}}
		got, err := m.Plan(before)
		require.Error(t, err, id)
		assert.Nil(t, got)
		assert.ErrorIs(t, err, lockstep.ErrInvalidID)
		assert.Contains(t, err.Error(), "path segment "+seg, id)
		assert.Contains(t, err.Error(), "use a separator that cannot overlap itself", id)
		assert.Equal(t, []lockstep.Request{{ID: id, Access: lockstep.Exclusive}}, before, "the request is not modified")
	}
	_, err := m.Plan([]lockstep.Request{{ID: "x::y:z::w"}, {ID: "a::b"}})
	require.NoError(t, err)

	arrow, _ := newManager(t, "->")
	got, err := arrow.Plan([]lockstep.Request{{ID: "a-->b", Access: lockstep.Exclusive}})
	require.NoError(t, err, `"->" cannot overlap itself: "a-->b" has one reading`)
	assert.Equal(t, []string{"a-:IX", "a-->b:X"}, strs(got))
}

func TestSelfOverlaps(t *testing.T) {
	for sep, want := range map[string]bool{"/": false, "::": true, "aba": true, "->": false, "ab": false, "//": true, "a/a": true} {
		assert.Equal(t, want, selfOverlaps(sep), sep)
	}
}
