package migration

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/setup"
	"github.com/lockstep-go/lockstep/migration/census"
	"github.com/lockstep-go/lockstep/queuelock"
)

var errNoModify = errors.New("user app has no MODIFY permission on <table locks.t> or any of its parents")

// writeFault is a store that fails every Put and Delete on one table with
// err (a refusal, as package cassandra's for a role without MODIFY, or a
// timeout), and counts the writes each table was sent in the probe's row.
type writeFault struct {
	lockstep.Store
	table string
	err   error
	// deleteOnly fails only the Deletes, so the probe's cell stays.
	deleteOnly bool

	mu     sync.Mutex
	probes map[string]int
}

func (s *writeFault) count(table, row string) {
	if row != setup.ProbeWriteRow {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.probes == nil {
		s.probes = map[string]int{}
	}
	s.probes[table]++
}

func (s *writeFault) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	s.count(table, row)
	if table == s.table && !s.deleteOnly {
		return fmt.Errorf("fault: put %s: %w", table, s.err)
	}
	return s.Store.Put(ctx, table, row, cells...)
}

func (s *writeFault) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	s.count(table, row)
	if table == s.table {
		return fmt.Errorf("fault: delete %s: %w", table, s.err)
	}
	return s.Store.Delete(ctx, table, row, ts, columns...)
}

var errRefusedModify = fmt.Errorf("%w: %w", lockstep.ErrRefused, errNoModify)

// Ready writes to every table the Locker writes, in a partition of its own,
// and leaves nothing live there; a table the role may not modify fails
// Ready with the GRANT that is missing, instead of the first Lock.
func TestReady_WriteProbe(t *testing.T) {
	ready := func(t *testing.T, s lockstep.Store, fencing bool) error {
		o := testOptions(1)
		o.Queue = &queuelock.Options{Table: "my_queue"}
		if fencing {
			g, err := clock.NewGlobal(s, "my_time", &clock.Local{})
			require.NoError(t, err)
			o.Fencing = g
		}
		l, err := New(s, Static(lockstep.ModeLegacy), withIdentity(o, &clock.Local{}, "p"))
		require.NoError(t, err)
		defer l.Close(context.Background())
		return l.Ready(context.Background())
	}
	written := []string{"legacy_main", "legacy_shadow", "my_queue", census.DefaultTable, "my_time"}

	t.Run("probes every written table and leaves nothing", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			m := newStore()
			s := &writeFault{Store: m, table: "none"}
			require.NoError(t, ready(t, s, true))
			for _, table := range written {
				assert.Equal(t, 2, s.probes[table], "table %s: one put, one delete", table)
				cells, err := m.Read(context.Background(), table, setup.ProbeWriteRow, lockstep.Slice{})
				require.NoError(t, err)
				assert.Empty(t, cells, "table %s", table)
			}
			assert.Zero(t, s.probes[DefaultPhaseTable], "the phase is the operator's to write")
		})
	})
	for _, table := range written {
		t.Run("refused on "+table, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				err := ready(t, &writeFault{Store: newStore(), table: table, err: errRefusedModify}, true)
				require.ErrorIs(t, err, ErrNotReady)
				require.ErrorIs(t, err, lockstep.ErrRefused)
				require.ErrorIs(t, err, errNoModify)
				assert.Contains(t, err.Error(), "migration: not ready: table "+table+" refuses a write: fault: put "+table+": ")
				assert.Contains(t, err.Error(), "GRANT MODIFY ON TABLE <keyspace>."+table+" TO <role>")
				assert.Contains(t, err.Error(), "docs/security.md")
			})
		})
	}
	t.Run("a phase the role may not write is fine", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			assert.NoError(t, ready(t, &writeFault{Store: newStore(), table: DefaultPhaseTable, err: errRefusedModify}, false))
		})
	})
	t.Run("without fencing the global time table is not probed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			assert.NoError(t, ready(t, &writeFault{Store: newStore(), table: "my_time", err: errRefusedModify}, false))
		})
	})
	t.Run("refused delete leaves the cell to its TTL", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			m := newStore()
			err := ready(t, &writeFault{Store: m, table: "my_queue", err: errRefusedModify, deleteOnly: true}, false)
			require.ErrorIs(t, err, lockstep.ErrRefused)
			assert.Contains(t, err.Error(), "table my_queue refuses a write: fault: delete my_queue: ")
			cells, rerr := m.Read(context.Background(), "my_queue", setup.ProbeWriteRow, lockstep.Slice{})
			require.NoError(t, rerr)
			require.Len(t, cells, 1)
			assert.LessOrEqual(t, cells[0].TTL, setup.ProbeWriteTTL)
			assert.Positive(t, cells[0].TTL)
		})
	})
	t.Run("a write that times out is not a refusal", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			timeout := fmt.Errorf("%w: write timeout", lockstep.ErrUnknownOutcome)
			err := ready(t, &writeFault{Store: newStore(), table: "legacy_main", err: timeout}, false)
			require.ErrorIs(t, err, ErrNotReady)
			require.NotErrorIs(t, err, lockstep.ErrRefused)
			assert.Contains(t, err.Error(), "migration: not ready: table legacy_main does not take a write: ")
			assert.Contains(t, err.Error(), setup.SchemaFix)
		})
	})
}
