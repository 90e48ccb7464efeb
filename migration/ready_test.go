package migration

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration/census"
	"github.com/lockstep-go/lockstep/queuelock"
)

// missingTable is a store on which one table does not exist, answering as
// Cassandra does.
type missingTable struct {
	lockstep.Store
	table string
}

func (s missingTable) Read(ctx context.Context, table, row string, sl lockstep.Slice) ([]lockstep.Cell, error) {
	if table == s.table {
		return nil, errors.New("unconfigured table " + table)
	}
	return s.Store.Read(ctx, table, row, sl)
}

func TestReady(t *testing.T) {
	const fix = "create the lockstep tables with lockctl schema apply --keyspace <keyspace> " +
		"(schema.Apply; schema.Verify names what is missing), or fix the store's connection"
	ready := func(t *testing.T, s lockstep.Store, flag FlagSource, o *Options) error {
		l, err := New(s, flag, withIdentity(o, &clock.Local{}, "p"))
		require.NoError(t, err)
		defer l.Close(context.Background())
		return l.Ready(context.Background())
	}
	t.Run("all fine", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			assert.NoError(t, ready(t, newStore(), Static(lockstep.ModeLegacy), testOptions(1)))
		})
	})
	for _, table := range []string{"legacy_main", "legacy_shadow", "my_queue", census.DefaultTable, DefaultPhaseTable} {
		t.Run("missing "+table, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o := testOptions(1)
				o.Queue = &queuelock.Options{Table: "my_queue"}
				err := ready(t, missingTable{newStore(), table}, Static(lockstep.ModeLegacy), o)
				require.ErrorIs(t, err, ErrNotReady)
				assert.Contains(t, err.Error(), "migration: not ready: table "+table+" does not answer a read: ")
				assert.Contains(t, err.Error(), "unconfigured table "+table)
				assert.Contains(t, err.Error(), fix)
			})
		})
	}
	t.Run("missing global time table with fencing", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := missingTable{newStore(), clock.DefaultGlobalTable}
			g, err := clock.NewGlobal(s, clock.DefaultGlobalTable, &clock.Local{})
			require.NoError(t, err)
			o := testOptions(1)
			o.Fencing = g
			err = ready(t, s, Static(lockstep.ModeLegacy), o)
			require.ErrorIs(t, err, ErrNotReady)
			assert.Contains(t, err.Error(), "the global time table (fencing tokens) does not answer a read: ")
			assert.Contains(t, err.Error(), fix)
			o.Fencing = nil // without fencing the table is not the Locker's
			assert.NoError(t, ready(t, s, Static(lockstep.ModeLegacy), o))
		})
	})
	t.Run("flag file missing", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			err := ready(t, newStore(), File(filepath.Join(t.TempDir(), "absent")), testOptions(1))
			require.ErrorIs(t, err, ErrNotReady)
			require.ErrorIs(t, err, os.ErrNotExist)
			assert.Contains(t, err.Error(), "migration: not ready: the mode flag gives no mode: ")
			assert.Contains(t, err.Error(), "no good answer yet to fall back on: fix the flag source")
			assert.Contains(t, err.Error(), ": make the flag source answer legacy, combined or new")
		})
	})
	t.Run("phase refuses the flag", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newStore()
			setPhase(t, newController(t, s, time.Second), lockstep.ModeCombined, lockstep.ModeNew)
			err := ready(t, s, Static(lockstep.ModeLegacy), testOptions(1))
			require.ErrorIs(t, err, ErrNotReady)
			require.ErrorIs(t, err, lockstep.ErrIncompatibleMode)
			assert.Equal(t, "migration: not ready: the flag gives mode legacy, which fleet phase new refuses (allowed: combined, new): "+
				"every lock would fail with lockstep: incompatible lock mode: "+
				"set the flag to a mode the phase allows (combined, new), "+
				"or move the phase one step towards legacy (lockctl phase set combined) once the fleet allows it", err.Error())
		})
	})
	t.Run("closed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			l, err := New(newStore(), Static(lockstep.ModeLegacy), withIdentity(testOptions(1), &clock.Local{}, "p"))
			require.NoError(t, err)
			require.NoError(t, l.Close(context.Background()))
			require.ErrorIs(t, l.Ready(context.Background()), lockstep.ErrClosed)
		})
	})
}
