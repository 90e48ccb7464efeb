package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/migration/census"
	"github.com/lockstep-go/lockstep/queuelock"
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

// --intention-range reaches the queue lock: a lock of "a/b" leaves its IX
// on "a" in the intention range, and without the flag under "~o/"
// (docs/algorithms.md, section 4.14); it is read from the environment too.
func TestJoin_IntentionRangeFlagMovesIntentionCells(t *testing.T) {
	ctx := context.Background()
	for _, on := range []bool{false, true} {
		env := map[string]string{}
		if on {
			env["LOCKSTEP_LOCKD_INTENTION_RANGE"] = "true"
		}
		o, err := parseOptions([]string{"--process-id", "lockd-ir"}, func(k string) string { return env[k] }, io.Discard)
		require.NoError(t, err)
		require.Equal(t, on, o.intentionRange)
		store, err := embeddedStore(ctx, lockstep.ModeNew)
		require.NoError(t, err)
		l, err := join(store, o, slog.New(slog.DiscardHandler), nil)
		require.NoError(t, err)
		lock, err := l.Lock(ctx, "a/b")
		require.NoError(t, err)
		cells, err := store.Read(ctx, queuelock.DefaultTable, "a", lockstep.Slice{})
		require.NoError(t, err)
		var ranged, plain int
		for _, c := range cells {
			switch {
			case strings.HasPrefix(c.Column, "~~i/"):
				ranged++
			case strings.HasPrefix(c.Column, "~o/"):
				plain++
			}
		}
		require.Equal(t, map[bool][2]int{false: {0, 1}, true: {1, 0}}[on], [2]int{ranged, plain}, "cells of a: %v", cells)
		require.NoError(t, lock.Unlock(ctx))
		require.NoError(t, l.Close(ctx))
	}
}

// --local-handoff reaches the migration Locker: a lock one session
// unlocks while another waits for it passes over in memory (the same owner,
// a greater token); it is read from the environment too, and a negative
// value is refused.
func TestJoin_LocalHandoffFlagHandsLocksOverInMemory(t *testing.T) {
	_, err := parseOptions([]string{"--local-handoff", "-1"}, func(string) string { return "" }, io.Discard)
	require.ErrorContains(t, err, "--local-handoff -1")
	env := map[string]string{"LOCKSTEP_LOCKD_LOCAL_HANDOFF": "4"}
	o, err := parseOptions([]string{"--process-id", "lockd-lh"}, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, 4, o.localHandoff)
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store, err := embeddedStore(ctx, lockstep.ModeNew)
		require.NoError(t, err)
		l, err := join(store, o, slog.New(slog.DiscardHandler), nil)
		require.NoError(t, err)
		defer func() { require.NoError(t, l.Close(ctx)) }()
		a, err := l.Lock(ctx, "hot")
		require.NoError(t, err)
		type res struct {
			l   lockstep.Lock
			err error
		}
		bc := make(chan res, 1)
		go func() { b, err := l.Lock(ctx, "hot"); bc <- res{b, err} }()
		synctest.Wait() // the second Lock waits in the line: a local handoff needs a waiter
		require.NoError(t, a.Unlock(ctx))
		b := <-bc
		require.NoError(t, b.err)
		require.Equal(t, a.Owner(), b.l.Owner(), "handed over in memory")
		require.Greater(t, b.l.(lockstep.Fenced).Token(), a.(lockstep.Fenced).Token())
		require.NoError(t, b.l.Unlock(ctx))
	})
}

// --retain reaches the migration Locker: a lock a session unlocks with
// nobody waiting is granted to the next Lock in memory (the same owner,
// the next token); it is read from the environment too, and a negative
// value or one without --local-handoff is refused.
func TestJoin_RetainFlagKeepsAnUnlockedLockForTheNextLock(t *testing.T) {
	none := func(string) string { return "" }
	_, err := parseOptions([]string{"--local-handoff", "2", "--retain", "-1s"}, none, io.Discard)
	require.ErrorContains(t, err, "--retain -1s")
	_, err = parseOptions([]string{"--local-handoff", "0", "--retain", "1s"}, none, io.Discard)
	require.ErrorContains(t, err, "needs --local-handoff")
	o, err := parseOptions(nil, none, io.Discard)
	require.NoError(t, err)
	require.Equal(t, 8, o.localHandoff, "the default")
	require.Equal(t, 20*time.Millisecond, o.retain, "the default")
	env := map[string]string{"LOCKSTEP_LOCKD_LOCAL_HANDOFF": "4", "LOCKSTEP_LOCKD_RETAIN": "1m"}
	o, err = parseOptions([]string{"--process-id", "lockd-rt"}, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, time.Minute, o.retain)
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store, err := embeddedStore(ctx, lockstep.ModeNew)
		require.NoError(t, err)
		l, err := join(store, o, slog.New(slog.DiscardHandler), nil)
		require.NoError(t, err)
		defer func() { require.NoError(t, l.Close(ctx)) }()
		a, err := l.Lock(ctx, "hot")
		require.NoError(t, err)
		require.NoError(t, a.Unlock(ctx))
		b, err := l.Lock(ctx, "hot")
		require.NoError(t, err)
		require.Equal(t, a.Owner(), b.Owner(), "the retained store hold, granted in memory")
		require.Equal(t, a.(lockstep.Fenced).Token()+1, b.(lockstep.Fenced).Token())
		require.NoError(t, b.Unlock(ctx))
	})
}

// --evidence reaches the queue lock: with record or use, a lock's release
// writes its token into the id's queue partition (docs/algorithms.md,
// section 5.3), and with off nothing; it is read from the environment too.
// A value that is no setting, and evidence without fencing, are refused
// with what to do.
func TestJoin_EvidenceFlagRecordsTokens(t *testing.T) {
	ctx := context.Background()
	for _, v := range []string{"off", "record", "use"} {
		env := map[string]string{"LOCKSTEP_LOCKD_EVIDENCE": v}
		o, err := parseOptions([]string{"--process-id", "lockd-ev", "--local-handoff", "0", "--retain", "0"}, func(k string) string { return env[k] }, io.Discard)
		require.NoError(t, err)
		require.Equal(t, v, o.evidence.String())
		store, err := embeddedStore(ctx, lockstep.ModeNew)
		require.NoError(t, err)
		l, err := join(store, o, slog.New(slog.DiscardHandler), nil)
		require.NoError(t, err)
		lock, err := l.Lock(ctx, "invoice-7")
		require.NoError(t, err)
		token := lock.(lockstep.Fenced).Token()
		require.NoError(t, lock.Unlock(ctx))
		require.NoError(t, l.Close(ctx))
		cells, err := store.Read(ctx, queuelock.DefaultTable, "invoice-7", lockstep.Slice{})
		require.NoError(t, err)
		var recorded int64
		for _, c := range cells {
			if c.Column == "~~evidence" {
				recorded = c.Timestamp // the evidence cell's timestamp is its token
			}
		}
		if v == "off" {
			require.Zero(t, recorded, "--evidence off records nothing")
		} else {
			require.Equal(t, token, recorded, "--evidence %s: the release records the lock's token", v)
		}
	}
	for args, says := range map[string]string{
		"--evidence maybe":                  `--evidence "maybe": want off, record or use`,
		"--evidence use --fencing=false":    "--evidence use needs --fencing",
		"--evidence record --fencing=false": "--evidence record needs --fencing",
	} {
		_, err := parseOptions(strings.Fields(args), func(string) string { return "" }, io.Discard)
		require.ErrorContains(t, err, says, args)
	}
}
