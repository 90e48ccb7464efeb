package migration

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// flakyFlag answers its mode, or errBroken while broken.
type flakyFlag struct {
	mode   lockstep.Mode
	broken atomic.Bool
}

var errBroken = errors.New("flag service unreachable")

func (f *flakyFlag) Mode(context.Context) (lockstep.Mode, error) {
	if f.broken.Load() {
		return lockstep.ModeUnknown, errBroken
	}
	return f.mode, nil
}

func TestKeepLastGood_ServesTheLastAnswerForStaleForThenFails(t *testing.T) {
	ctx := context.Background()
	clk := model.NewManualClock(0)
	var logs syncBuffer
	src := &flakyFlag{mode: lockstep.ModeCombined}
	f, err := keepLastGood(src, &flagOptions{StaleFor: 10 * time.Second, Clock: clk,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)

	src.broken.Store(true)
	_, err = f.Mode(ctx)
	require.ErrorIs(t, err, errBroken, "no good answer yet: nothing to fall back on")
	assert.Contains(t, err.Error(), "no good answer yet to fall back on: fix the flag source")

	src.broken.Store(false)
	m, err := f.Mode(ctx)
	require.NoError(t, err)
	require.Equal(t, lockstep.ModeCombined, m)

	src.broken.Store(true)
	for range 20 {
		clk.Advance(500 * time.Millisecond) // 10s in all: the edge is still served
		m, err := f.Mode(ctx)
		require.NoError(t, err)
		assert.Equal(t, lockstep.ModeCombined, m)
	}
	assert.Equal(t, 1, strings.Count(logs.String(), "serving its last good answer"), "one Warn per outage:\n%s", logs.String())

	clk.Advance(time.Millisecond)
	_, err = f.Mode(ctx)
	require.ErrorIs(t, err, errBroken)
	assert.Contains(t, err.Error(), "more than FlagStaleFor 10s: fix the flag source, or raise FlagStaleFor")
	assert.Contains(t, logs.String(), "acquisitions fail until it answers")

	// A done ctx is not papered over, and a negative StaleFor serves nothing.
	src.broken.Store(false)
	_, err = f.Mode(ctx)
	require.NoError(t, err)
	src.broken.Store(true)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = f.Mode(cctx)
	require.ErrorIs(t, err, errBroken)

	off, err := keepLastGood(&flakyFlag{mode: lockstep.ModeNew}, &flagOptions{StaleFor: -1, Clock: clk})
	require.NoError(t, err)
	_, err = off.Mode(ctx)
	require.NoError(t, err)
	off.(*lastGood).src.(*flakyFlag).broken.Store(true)
	_, err = off.Mode(ctx)
	require.ErrorIs(t, err, errBroken)
}

// The case: a flag file that vanishes for 4 s (a ConfigMap remount)
// fails none of 20 locks taken meanwhile, with one Warn; once it has been
// gone for longer than FlagStaleFor, locks fail saying what to do. synctest's
// fake clock drives every timer.
func TestLocker_FlagFileVanishingFor4sFailsNoLock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		path := filepath.Join(t.TempDir(), "lock-mode")
		require.NoError(t, os.WriteFile(path, []byte("legacy\n"), 0o600))
		var logs syncBuffer
		o := testOptions(3)
		o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		l, err := New(newStore(), File(path), withIdentity(o, &clock.Local{}, "p"))
		require.NoError(t, err)
		defer l.Close(ctx)

		take := func() error {
			h, err := l.Lock(ctx, "id")
			if err != nil {
				return err
			}
			assert.Equal(t, lockstep.ModeLegacy, h.Mode())
			return h.Unlock(ctx)
		}
		require.NoError(t, take())

		require.NoError(t, os.Remove(path))
		for i := range 20 {
			require.NoError(t, take(), "lock %d with the flag file gone", i)
			time.Sleep(200 * time.Millisecond) // 4s in all
		}
		assert.Equal(t, 1, strings.Count(logs.String(), "serving its last good answer"), logs.String())
		require.NoError(t, os.WriteFile(path, []byte("legacy\n"), 0o600))
		require.NoError(t, take())

		require.NoError(t, os.Remove(path))
		time.Sleep(defaultFlagStaleFor + time.Second)
		err = take()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "no such file or directory")
		assert.Contains(t, err.Error(), "fix the flag source, or raise FlagStaleFor")
	})
}
