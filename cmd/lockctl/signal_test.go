package main

import (
	"context"
	"os"
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// main's context names the signal that ended it, so lock can forward it.
func TestNotifySignals_CauseNamesTheSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no signals to self on Windows")
	}
	ctx, stop := notifySignals(t.Context(), syscall.SIGHUP)
	defer stop()
	self, err := os.FindProcess(os.Getpid())
	require.NoError(t, err)
	require.NoError(t, self.Signal(syscall.SIGHUP))
	<-ctx.Done()
	assert.ErrorIs(t, ctx.Err(), context.Canceled)
	assert.Equal(t, signalReceived{syscall.SIGHUP}, context.Cause(ctx))
	assert.Equal(t, syscall.SIGHUP, interruption(ctx), "lock forwards it")
	assert.EqualError(t, context.Cause(ctx), "hangup signal received")
}
