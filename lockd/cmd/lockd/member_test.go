package main

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/migration/census"
)

// A lockd is an ordinary fleet process: its Locker is in the census under
// its process id, and takes its locks in the phase's mode.
func TestJoin_IsInTheCensusAndFollowsThePhase(t *testing.T) {
	ctx := context.Background()
	store, err := embeddedStore(ctx, lockstep.ModeNew)
	require.NoError(t, err)
	o := &options{processID: "lockd-test", separator: "/", fencing: true}
	l, err := join(store, o, slog.New(slog.DiscardHandler), nil)
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Close(ctx)) }()

	inCensus := func() bool { // the heartbeat writes the entry soon after New
		entries, err := census.Read(ctx, store, "")
		require.NoError(t, err)
		for _, e := range entries {
			if e.Process == "lockd-test" {
				return true
			}
		}
		return false
	}
	require.Eventually(t, inCensus, 10*time.Second, 10*time.Millisecond, "lockd's process is in the census")

	lock, err := l.Lock(ctx, "invoice-1")
	require.NoError(t, err)
	require.Equal(t, lockstep.ModeNew, lock.Mode(), "the embedded fleet is in phase new")
	_, fenced := lock.(lockstep.Fenced)
	require.True(t, fenced)
	require.NoError(t, lock.Unlock(ctx))
}
