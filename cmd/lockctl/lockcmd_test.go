package main

import (
	"context"
	"io"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/migration/census"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/schema"
)

// These tests run lockctl lock against the in-memory model on a ManualClock:
// leases lapse only when a test moves the clock. The command is this test
// binary as a helper process (lockhelper_test.go). They cannot run in a
// synctest bubble: a goroutine waiting for a child process is not durably
// blocked, so the bubble's time would never move.

// lockRig is a model store on a clock the test moves, shared by lockctl and
// the test's own Lockers.
type lockRig struct {
	t       *testing.T
	clk     *model.ManualClock
	store   *model.Store
	lockers int // Lockers made, to name their processes apart
}

func newLockRig(t *testing.T) *lockRig {
	clk := model.NewManualClock(0)
	return &lockRig{t: t, clk: clk, store: model.New(clk)}
}

// tick moves the clock a millisecond, as time passes between one step of a
// test and the next: on a clock that stands still a write could share its
// timestamp with an earlier delete of the same cell, which wins the tie.
func (r *lockRig) tick() { r.clk.Advance(time.Millisecond) }

// app returns lockctl on the rig, its command's stdin in and its stdout and
// stderr captured, passing the helper's environment (plus extra).
func (r *lockRig) app(in io.Reader, extra ...string) (*app, *output, *output) {
	r.tick()
	out, errOut := newOutput(), newOutput()
	if in == nil {
		in = strings.NewReader("")
	}
	a := newApp(in, out, errOut)
	a.getenv = func(string) string { return "" }
	a.connect = func(context.Context, *options) (*conn, error) { return &conn{store: r.store}, nil }
	a.clock = r.clk
	a.environ = helperEnviron(extra...)
	return a, out, errOut
}

// start runs lockctl lock with flags, id and the helper command args on a
// goroutine; the exit code arrives on the channel.
func start(ctx context.Context, a *app, lockArgs []string, helper ...string) <-chan int {
	ended := make(chan int, 1)
	args := append(append([]string{"lock"}, lockArgs...), "--")
	args = append(args, helperCommand(helper...)...)
	go func() { ended <- a.run(ctx, args) }()
	return ended
}

// runLock runs lockctl lock to the end.
func runLock(t *testing.T, a *app, lockArgs []string, helper ...string) int {
	t.Helper()
	select {
	case code := <-start(t.Context(), a, lockArgs, helper...):
		return code
	case <-time.After(10 * time.Second):
		t.Fatalf("lockctl lock %q did not end", lockArgs)
		return -1
	}
}

// await returns lockctl's exit code.
func await(t *testing.T, ended <-chan int) int {
	t.Helper()
	select {
	case code := <-ended:
		return code
	case <-time.After(10 * time.Second):
		t.Fatal("lockctl lock did not end")
		return -1
	}
}

// locker returns another process's Locker on the rig in mode m, closed at
// cleanup.
func (r *lockRig) locker(process string, m lockstep.Mode) *migration.Locker {
	r.t.Helper()
	r.tick()
	r.lockers++
	process += "-" + strconv.Itoa(r.lockers)
	l, err := migration.New(r.store, migration.Static(m), &migration.Options{Clock: r.clk, ProcessID: process})
	require.NoError(r.t, err)
	r.t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// assertFree checks that id can be taken (and gives it back).
func (r *lockRig) assertFree(id string) {
	r.t.Helper()
	l, err := r.locker("checker", lockstep.ModeLegacy).TryLock(r.t.Context(), id)
	require.NoError(r.t, err, "lock %q was not released", id)
	require.NoError(r.t, l.Unlock(r.t.Context()))
}

// assertHeld checks that another process's TryLock finds id held.
func (r *lockRig) assertHeld(id string) {
	r.t.Helper()
	l, err := r.locker("prober", lockstep.ModeLegacy).TryLock(r.t.Context(), id)
	if err == nil {
		_ = l.Unlock(r.t.Context())
	}
	require.ErrorIs(r.t, err, lockstep.ErrLocked, "lock %q is not held", id)
}

// envOf parses the helper's "env" output.
func envOf(out string) map[string]string {
	env := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	return env
}

func TestLock_ExitsWithTheCommandsStatus(t *testing.T) {
	r := newLockRig(t)
	for _, c := range []struct {
		helper []string
		want   int
	}{
		{[]string{"exit", "0"}, 0},
		{[]string{"exit", "3"}, 3},
		{[]string{"exit", "77"}, 77},
		{[]string{"kill-self"}, 128 + int(syscall.SIGKILL)},
	} {
		a, _, errOut := r.app(nil)
		assert.Equal(t, c.want, runLock(t, a, []string{"job"}, c.helper...), "%q", c.helper)
		assert.Empty(t, errOut.String(), "%q: lockctl adds nothing to the command's own status", c.helper)
		r.assertFree("job")
	}
}

func TestLock_CommandSeesTheLocksIDTokenAndOwner(t *testing.T) {
	r := newLockRig(t)
	var tokens []int64
	for range 2 {
		in, done := io.Pipe()
		a, out, _ := r.app(in, envLockID+"=outer", envToken+"=1")
		ended := start(t.Context(), a, []string{"job"}, "env")
		out.awaitReady(t, ended)
		env := envOf(out.String())
		assert.Equal(t, "job", env[envLockID], "the lock's id replaces the one inherited")
		token, err := strconv.ParseInt(env[envToken], 10, 64)
		require.NoError(t, err, "token %q", env[envToken])
		owner := env[envOwner]
		assert.True(t, strings.HasPrefix(owner, "lockctl-"), "owner %q names lockctl", owner)
		lc, err := readLock(t.Context(), r.store, schema.DefaultTables(), "job", false)
		require.NoError(t, err)
		assert.Equal(t, "held by "+owner, lc.legacyStatus(), "the owner in the environment is the one in the store")
		tokens = append(tokens, token)
		require.NoError(t, done.Close())
		require.Equal(t, exitOK, await(t, ended))
	}
	assert.Greater(t, tokens[0], int64(0))
	assert.Greater(t, tokens[1], tokens[0], "fencing tokens grow from one owner to the next")
}

func TestLock_HeldWhileTheCommandRunsAndReleasedAfter(t *testing.T) {
	r := newLockRig(t)
	in, done := io.Pipe()
	a, out, _ := r.app(in)
	ended := start(t.Context(), a, []string{"job"}, "env")
	out.awaitReady(t, ended)
	r.assertHeld("job")
	require.NoError(t, done.Close()) // the command ends
	require.Equal(t, exitOK, await(t, ended))
	r.assertFree("job")
	entries, err := census.Read(t.Context(), r.store, "")
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Process, "lockctl-"), "lockctl left its census entry: %v", e)
	}
}

// While the command runs, lockctl is a process of the census holding a lock
// in the mode the phase calls for: legacy in phase legacy, new in phase new.
func TestLock_DefaultModeFollowsThePhase(t *testing.T) {
	r := newLockRig(t)
	ctl, err := migration.NewController(r.store, &migration.ControllerOptions{Clock: r.clk})
	require.NoError(t, err)
	for _, c := range []struct {
		phase         lockstep.Mode
		queue, legacy bool // where the holder's cells are
		censusMode    lockstep.Mode
	}{
		{lockstep.ModeLegacy, false, true, lockstep.ModeLegacy},
		{lockstep.ModeCombined, true, true, lockstep.ModeCombined},
		{lockstep.ModeNew, true, false, lockstep.ModeNew},
	} {
		require.NoError(t, ctl.Set(t.Context(), c.phase))
		in, done := io.Pipe()
		a, out, _ := r.app(in)
		ended := start(t.Context(), a, []string{"job"}, "env")
		out.awaitReady(t, ended)
		owner := envOf(out.String())[envOwner]
		lc, err := readLock(t.Context(), r.store, schema.DefaultTables(), "job", false)
		require.NoError(t, err)
		assert.Equal(t, c.queue, len(lc.owners) == 1, "phase %v: queue lock %s", c.phase, lc.queueStatus())
		assert.Equal(t, c.legacy, len(lc.main) == 1, "phase %v: legacy lock %s", c.phase, lc.legacyStatus())
		entries, err := census.Read(t.Context(), r.store, "")
		require.NoError(t, err)
		require.Len(t, entries, 1)
		// Admission published the mode before it read the phase; the
		// counts of held locks follow with the heartbeats.
		assert.Equal(t, c.censusMode, entries[0].Configured, "phase %v: census %v", c.phase, entries[0])
		assert.NotEmpty(t, owner)
		require.NoError(t, done.Close())
		require.Equal(t, exitOK, await(t, ended))
	}
}

func TestLock_LostLockStopsTheCommandAndExitsFive(t *testing.T) {
	r := newLockRig(t)
	a, out, errOut := r.app(nil)
	ended := start(t.Context(), a, []string{"job"}, "sleep")
	out.awaitReady(t, ended)
	// lockctl stalls past its lease window (TTL 30s − 1s − skew 1s, halved:
	// 14s): its next renewal finds the deadline passed and declares the
	// lease lost.
	r.clk.Advance(20 * time.Second)
	require.Equal(t, exitLost, await(t, ended), "stderr %q", errOut)
	msg := errOut.String()
	assert.Equal(t, 1, strings.Count(msg, "\n"), "one line: %q", msg)
	assert.Contains(t, msg, `lockctl: lock "job" was lost while the command ran`)
	assert.Contains(t, msg, "stopped it with SIGTERM (it exited with status 143)")
	r.tick()
	r.assertFree("job")
}

func TestLock_LostLockKillsACommandThatIgnoresSIGTERMAfterTheGrace(t *testing.T) {
	r := newLockRig(t)
	a, out, errOut := r.app(nil)
	ended := start(t.Context(), a, []string{"--grace", "100ms", "--output", "json", "job"}, "ignore-term")
	out.awaitReady(t, ended)
	r.clk.Advance(20 * time.Second)
	require.Equal(t, exitLost, await(t, ended), "stderr %q", errOut)
	assert.Contains(t, errOut.String(), "SIGTERM and, still running after --grace 100ms, SIGKILL")
	// The command's output, then lockctl's JSON error.
	body := decodeError(t, strings.TrimPrefix(out.String(), "ready\n"))
	assert.Equal(t, "lost", body.Kind)
	assert.Equal(t, exitLost, body.ExitCode)
}

// A signal to lockctl goes on to the command (here SIGINT, which the command
// reports), and lockctl exits with the command's status once it has released
// the lock.
func TestLock_SignalIsForwardedAndTheLockReleased(t *testing.T) {
	r := newLockRig(t)
	a, out, errOut := r.app(nil)
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	ended := start(ctx, a, []string{"job"}, "trap")
	out.awaitReady(t, ended)
	cancel(signalReceived{syscall.SIGINT})
	require.Equal(t, 42, await(t, ended), "stderr %q", errOut)
	assert.Contains(t, out.String(), "got interrupt\n")
	assert.Empty(t, errOut.String())
	r.assertFree("job")
}

func TestLock_WaitZeroOnAHeldLockIsRefused(t *testing.T) {
	r := newLockRig(t)
	held, err := r.locker("holder", lockstep.ModeLegacy).Lock(t.Context(), "job")
	require.NoError(t, err)
	a, out, errOut := r.app(nil)
	require.Equal(t, exitRefused, runLock(t, a, []string{"--wait", "0", "job"}, "env"))
	assert.Empty(t, out.String(), "the command ran")
	assert.Contains(t, errOut.String(), `lockctl: lock "job" is held by another owner and --wait is 0; the command did not run`)
	assert.Contains(t, errOut.String(), "lockctl inspect job shows the holder")
	lc, err := readLock(t.Context(), r.store, schema.DefaultTables(), "job", false)
	require.NoError(t, err)
	assert.Equal(t, "held by "+held.Owner(), lc.legacyStatus(), "the refusal left a cell")
	assert.Empty(t, lc.shadow)
	assert.Empty(t, lc.owners)
	assert.Empty(t, lc.queue)
}

func TestLock_WaitThatRunsOutIsRefused(t *testing.T) {
	r := newLockRig(t)
	_, err := r.locker("holder", lockstep.ModeLegacy).Lock(t.Context(), "job")
	require.NoError(t, err)
	a, out, errOut := r.app(nil)
	require.Equal(t, exitRefused, runLock(t, a, []string{"--wait", "50ms", "job"}, "env"))
	assert.Empty(t, out.String(), "the command ran")
	assert.Contains(t, errOut.String(), `lockctl: lock "job" not taken within --wait 50ms; the command did not run`)
}

// SIGINT while lockctl waits for a held lock ends the wait: exit 130, the
// command never ran, and the JSON document names the kind.
func TestLock_InterruptedWhileWaiting(t *testing.T) {
	r := newLockRig(t)
	_, err := r.locker("holder", lockstep.ModeLegacy).Lock(t.Context(), "job")
	require.NoError(t, err)
	a, out, errOut := r.app(nil)
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	ended := start(ctx, a, []string{"--output", "json", "job"}, "env")
	time.AfterFunc(20*time.Millisecond, func() { cancel(signalReceived{syscall.SIGINT}) })
	require.Equal(t, 128+int(syscall.SIGINT), await(t, ended))
	assert.Contains(t, errOut.String(), `lockctl: interrupted (interrupt) while waiting for lock "job"; the command did not run`)
	body := decodeError(t, out.String())
	assert.Equal(t, "interrupted", body.Kind)
	assert.Equal(t, 130, body.ExitCode)
}

func TestLock_ModeThePhaseForbidsIsRefused(t *testing.T) {
	r := newLockRig(t)
	a, out, errOut := r.app(nil)
	require.Equal(t, exitRefused, runLock(t, a, []string{"--mode", "new", "job"}, "env"))
	assert.Empty(t, out.String(), "the command ran")
	assert.Contains(t, errOut.String(), `lockctl: lock "job": --mode new is not allowed while the fleet's phase is legacy`)
	assert.Contains(t, errOut.String(), "give --mode legacy or combined, or leave --mode out to follow the phase")
	lc, err := readLock(t.Context(), r.store, schema.DefaultTables(), "job", false)
	require.NoError(t, err)
	assert.Empty(t, lc.deletable(), "the refusal wrote cells")
	entries, err := census.Read(t.Context(), r.store, "")
	require.NoError(t, err)
	assert.Empty(t, entries, "the refusal left a census entry")
}
