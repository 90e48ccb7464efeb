package schema

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

func TestLegacyGCGrace_IsTheCellsSureLifePlusTheMargin(t *testing.T) {
	g, err := LegacyGCGrace(30*time.Second, time.Second)
	require.NoError(t, err)
	require.Equal(t, 30*time.Second+time.Second+time.Second+LegacyGCMargin, g)
	g, err = LegacyGCGrace(30*time.Second, 250*time.Millisecond)
	require.NoError(t, err)
	require.Equal(t, 332*time.Second, g, "rounded up to whole seconds")
	for _, bad := range []struct{ ttl, skew time.Duration }{{0, 0}, {1500 * time.Millisecond, 0}, {30 * time.Second, -time.Second}} {
		_, err := LegacyGCGrace(bad.ttl, bad.skew)
		require.ErrorIs(t, err, lockstep.ErrInvalidConfig, "%v, %v", bad.ttl, bad.skew)
	}
}

func TestWithLegacyTTL_ChangesOnlyTheLegacyTables(t *testing.T) {
	def, err := Statements("locks")
	require.NoError(t, err)
	derived, err := Statements("locks", WithLegacyTTL(30*time.Second, time.Second))
	require.NoError(t, err)
	require.Len(t, derived, len(def))
	for i := range def {
		legacy := strings.Contains(def[i], ".legacy_main (") || strings.Contains(def[i], ".legacy_shadow (")
		if !legacy {
			require.Equal(t, def[i], derived[i], "only the legacy tables' options follow the legacy TTL")
			continue
		}
		require.Contains(t, def[i], "gc_grace_seconds = 10800")
		require.Contains(t, def[i], "memtable_flush_period_in_ms = 10800000")
		for _, want := range []string{"gc_grace_seconds = 332", "'tombstone_compaction_interval': '332'", "memtable_flush_period_in_ms = 332000"} {
			require.Contains(t, derived[i], want)
		}
	}
}

func TestWithLegacyTTL_BadValuesRenderNothing(t *testing.T) {
	stmts, err := Statements("locks", WithLegacyTTL(1500*time.Millisecond, time.Second))
	require.Nil(t, stmts)
	require.True(t, errors.Is(err, lockstep.ErrInvalidConfig), "%v", err)
	require.Contains(t, err.Error(), "longest TTL any legacy writer")
}

func TestVerify_AcceptsTheDerivedLegacyGraceOnlyWhenToldTheLegacyTTL(t *testing.T) {
	wanted, fix := plan(t)
	cat := goodCatalog(Tables{})
	for _, name := range []string{"legacy_main", "legacy_shadow"} {
		l := cat.tables[name]
		l.gcGrace = 332
		cat.tables[name] = l
	}
	err := check("locks", wanted, cat, fix)
	require.ErrorIs(t, err, ErrNotReady, "without the legacy TTL, 332 s is below the 3 h Verify asks for")
	require.Contains(t, err.Error(), "gc_grace_seconds is 332, below 10800")
	require.NoError(t, checkGrace("locks", wanted, cat, fix, 332))
	err = checkGrace("locks", wanted, cat, fix, 400)
	require.ErrorIs(t, err, ErrNotReady)
	require.Contains(t, err.Error(), "ALTER TABLE locks.legacy_main WITH gc_grace_seconds = 400")
	_, _, err = verifyPlan("locks", []Option{WithLegacyTTL(0, 0)})
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
}
