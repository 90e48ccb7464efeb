package migration

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/migration/census"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// A 255-byte process id (a pod FQDN and more) works end to end on the model
// store: locks in every mode carry it in their cells, and the census lists
// it.
func TestLocker_MaxLengthProcessIDWorksInEveryMode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		pid := strings.Repeat("pod-0.orders.svc.cluster.local.", 8)
		pid += strings.Repeat("x", 255-len(pid))
		require.Len(t, pid, 255)
		s := newStore()
		flag := flagOf(lockstep.ModeLegacy)
		l := newProcess(t, s, pid, flag)
		c := newController(t, s, 10*time.Second)

		lockIn := func(m lockstep.Mode, table string, owner func(lockstep.Cell) string) {
			t.Helper()
			flag.set(m)
			h, err := l.Lock(ctx, "id")
			require.NoError(t, err, "Lock in mode %v", m)
			require.Equal(t, m, h.Mode())
			cells, err := s.Read(ctx, table, "id", lockstep.Slice{})
			require.NoError(t, err)
			var found bool
			for _, cell := range cells {
				found = found || strings.HasPrefix(owner(cell), pid+".")
			}
			assert.True(t, found, "mode %v: no cell of %s names the process: %v", m, table, cells)
			require.NoError(t, h.Unlock(ctx))
		}
		legacyOwner := layout.LegacyOwner
		queueOwner := func(cell lockstep.Cell) string {
			e, err := layout.Parse(cell.Column, cell.Value)
			require.NoError(t, err)
			if e.Kind == layout.Owner {
				assert.Equal(t, pid, e.Process)
			}
			return e.Owner
		}
		lockIn(lockstep.ModeLegacy, shadowlock.DefaultMainTable, legacyOwner)
		lockIn(lockstep.ModeCombined, queuelock.DefaultTable, queueOwner)
		setPhase(t, c, lockstep.ModeCombined, lockstep.ModeNew)
		lockIn(lockstep.ModeNew, queuelock.DefaultTable, queueOwner)

		entries, err := census.Read(ctx, s, "")
		require.NoError(t, err)
		require.Len(t, entries, 1)
		assert.Equal(t, pid, entries[0].Process)
		assert.NoError(t, entries[0].Err)
	})
}

// One byte more is refused by New, with the one text internal/setup gives.
func TestNew_RefusesA256ByteProcessIDSayingWhatToDo(t *testing.T) {
	l, err := New(newStore(), Static(lockstep.ModeLegacy), withIdentity(nil, &clock.Local{}, strings.Repeat("p", 256)))
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	require.Nil(t, l)
	assert.Contains(t, err.Error(), "ProcessID: 256 bytes")
	assert.Contains(t, err.Error(), "a process id is 1 to 255 bytes of [A-Za-z0-9._:-]; use e.g. the pod or host name, "+
		"or leave it empty for a default (host name and a random suffix)")
}

// The default process id names the host, so the census is readable.
func TestNew_DefaultProcessIDNamesTheHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, err := New(newStore(), Static(lockstep.ModeLegacy), testOptions(1))
		require.NoError(t, err)
		defer l.Close(context.Background())
		assert.Regexp(t, `-[0-9a-f]{16}$`, l.Process())
		assert.NotEqual(t, "lockstep-", l.Process()[:len(l.Process())-16])
	})
}
