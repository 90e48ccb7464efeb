package lockstep_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

var accesses = []lockstep.Access{lockstep.IntentShared, lockstep.IntentExclusive, lockstep.Shared,
	lockstep.SharedIntentExclusive, lockstep.Exclusive}

func TestAccess_ExclusiveIsTheZeroValue(t *testing.T) {
	var a lockstep.Access
	assert.Equal(t, lockstep.Exclusive, a)
	assert.Equal(t, lockstep.Exclusive, lockstep.Request{ID: "x"}.Access)
}

// The matrix of access.go's doc comment, row by row (IS, IX, S, SIX, X).
func TestAccess_CompatibleIsTheDocumentedMatrix(t *testing.T) {
	want := [5][5]bool{
		{true, true, true, true, false},
		{true, true, false, false, false},
		{true, false, true, false, false},
		{true, false, false, false, false},
		{false, false, false, false, false},
	}
	for i, a := range accesses {
		for j, b := range accesses {
			assert.Equal(t, want[i][j], a.Compatible(b), "%v with %v", a, b)
			assert.Equal(t, a.Compatible(b), b.Compatible(a), "symmetry of %v and %v", a, b)
		}
	}
	bad := lockstep.Access(5)
	assert.False(t, bad.Valid())
	for _, a := range accesses {
		assert.True(t, a.Valid())
		assert.False(t, bad.Compatible(a))
		assert.False(t, a.Compatible(bad))
		assert.False(t, bad.Covers(a))
		assert.False(t, a.Covers(bad))
	}
}

// Covers is a partial order (reflexive, antisymmetric, transitive) and
// agrees with the matrix: a covers b exactly when whatever coexists with a
// coexists with b.
func TestAccess_CoversIsAPartialOrderConsistentWithTheMatrix(t *testing.T) {
	for _, a := range accesses {
		assert.True(t, a.Covers(a), "%v covers itself", a)
		for _, b := range accesses {
			if a != b {
				assert.False(t, a.Covers(b) && b.Covers(a), "%v and %v cover each other", a, b)
			}
			for _, c := range accesses {
				if a.Covers(b) && b.Covers(c) {
					assert.True(t, a.Covers(c), "%v ≥ %v ≥ %v", a, b, c)
				}
				if a.Covers(b) && a.Compatible(c) {
					assert.True(t, b.Compatible(c), "%v covers %v, so %v coexists with both", a, b, c)
				}
			}
		}
	}
	// The lattice by name: X covers all; SIX covers S and IX; S and IX
	// cover IS; S and IX are incomparable.
	for _, a := range accesses {
		assert.True(t, lockstep.Exclusive.Covers(a))
		assert.True(t, a.Covers(lockstep.IntentShared))
	}
	assert.True(t, lockstep.SharedIntentExclusive.Covers(lockstep.Shared))
	assert.True(t, lockstep.SharedIntentExclusive.Covers(lockstep.IntentExclusive))
	assert.False(t, lockstep.Shared.Covers(lockstep.IntentExclusive))
	assert.False(t, lockstep.IntentExclusive.Covers(lockstep.Shared))
	assert.False(t, lockstep.Shared.Covers(lockstep.Exclusive))
}

func TestAccess_JoinIsTheLeastCover(t *testing.T) {
	assert.Equal(t, lockstep.SharedIntentExclusive, lockstep.Join(lockstep.Shared, lockstep.IntentExclusive))
	assert.Equal(t, lockstep.SharedIntentExclusive, lockstep.Join(lockstep.IntentExclusive, lockstep.Shared))
	assert.Equal(t, lockstep.Exclusive, lockstep.Join(lockstep.Shared, lockstep.Exclusive))
	assert.Equal(t, lockstep.Shared, lockstep.Join(lockstep.IntentShared, lockstep.Shared))
	for _, a := range accesses {
		assert.Equal(t, a, lockstep.Join(a, a), "Join(%v, %v)", a, a)
		for _, b := range accesses {
			j := lockstep.Join(a, b)
			assert.Equal(t, j, lockstep.Join(b, a))
			assert.True(t, j.Covers(a) && j.Covers(b), "Join(%v, %v) = %v covers both", a, b, j)
			for _, c := range accesses {
				if c.Covers(a) && c.Covers(b) {
					assert.True(t, c.Covers(j), "%v covers %v and %v but not their join %v", c, a, b, j)
				}
			}
		}
	}
}

func TestAccess_Intention(t *testing.T) {
	want := map[lockstep.Access]lockstep.Access{
		lockstep.IntentShared:          lockstep.IntentShared,
		lockstep.Shared:                lockstep.IntentShared,
		lockstep.IntentExclusive:       lockstep.IntentExclusive,
		lockstep.SharedIntentExclusive: lockstep.IntentExclusive,
		lockstep.Exclusive:             lockstep.IntentExclusive,
	}
	for a, i := range want {
		assert.Equal(t, i, a.Intention(), "%v", a)
		// Two requests compatible on an id are compatible on its ancestors.
		for b, j := range want {
			if a.Compatible(b) {
				assert.True(t, i.Compatible(j), "%v and %v coexist, their intentions %v and %v must", a, b, i, j)
			}
		}
	}
}

func TestParseAccess_RoundTripsAndRefusesJunk(t *testing.T) {
	for _, a := range accesses {
		got, err := lockstep.ParseAccess(a.String())
		require.NoError(t, err)
		assert.Equal(t, a, got)
	}
	for s, want := range map[string]lockstep.Access{
		" six ": lockstep.SharedIntentExclusive, "Intent-Shared": lockstep.IntentShared,
		"exclusive": lockstep.Exclusive, "SHARED": lockstep.Shared, "intent-exclusive": lockstep.IntentExclusive,
		"shared-intent-exclusive": lockstep.SharedIntentExclusive,
	} {
		got, err := lockstep.ParseAccess(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, got, s)
	}
	for _, s := range []string{"", "XS", "write", "s i x", "ISX", "Access(5)"} {
		_, err := lockstep.ParseAccess(s)
		assert.ErrorIs(t, err, lockstep.ErrInvalidAccess, "%q", s)
		assert.ErrorContains(t, err, "want X, S, IS, IX or SIX")
	}
	assert.Equal(t, "Access(9)", lockstep.Access(9).String())
	assert.Equal(t, "a/b:SIX", lockstep.Request{ID: "a/b", Access: lockstep.SharedIntentExclusive}.String())
}
