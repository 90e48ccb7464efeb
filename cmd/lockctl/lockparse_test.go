package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/lockstep-go/lockstep"
)

// lock's command line: what is refused before connecting and what a line
// parses to.

// Every refusal of the command line comes before anything connects (the
// app fails the test if it does), exits 2 and says what to do.
func TestLock_BadCommandLinesAreRefusedBeforeConnecting(t *testing.T) {
	self := helperCommand("exit", "0")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"lock"}, "lock: missing lock id and command: want lockctl lock <id> -- <command> [args...]"},
		{[]string{"lock", "job"}, "lock: missing -- between the lock id and the command"},
		{[]string{"lock", "job", "true"}, "the -- keeps the command's own flags from being read as lockctl's"},
		{append([]string{"lock", "--"}, self...), "lock: missing lock id before --"},
		{append([]string{"lock", "a", "b", "--"}, self...), `want one lock id before --, got 2 arguments: ["a" "b"]`},
		{[]string{"lock", "job", "--"}, "lock: missing command after --"},
		{append([]string{"lock", "", "--"}, self...), "invalid lock id: empty"},
		{append([]string{"lock", "bad\x00id", "--"}, self...), "invalid lock id: contains a NUL byte"},
		{append([]string{"lock", "--mode", "newest", "job", "--"}, self...), `--mode: lockstep: invalid mode: "newest"`},
		{append([]string{"lock", "--mode", "newest", "job", "--"}, self...), "or leave --mode out to follow the fleet's phase"},
		{append([]string{"lock", "--wait", "-1s", "job", "--"}, self...), "--wait -1s must not be negative"},
		{append([]string{"lock", "--wait", "soon", "job", "--"}, self...), `invalid argument "soon" for "--wait" flag`},
		{append([]string{"lock", "--grace", "-2s", "job", "--"}, self...), "--grace -2s must not be negative"},
		{[]string{"lock", "job", "--", "no-such-command-lockctl"}, `command "no-such-command-lockctl": exec: "no-such-command-lockctl": executable file not found in $PATH`},
	} {
		code, stdout, stderr := runArgs(t, c.args...)
		assert.Equal(t, exitUsage, code, "%q: stderr %q", c.args, stderr)
		first, _, _ := strings.Cut(stderr, "\n")
		assert.Contains(t, first, c.want, "%q", c.args)
		assert.Contains(t, stderr, "Run 'lockctl --help' for usage.")
		assert.Empty(t, stdout)
	}
}

// After "--" every argument is the command's, flags and another "--"
// included, and the command keeps the name it was given.
func TestParse_LockKeepsTheCommandLineAfterTheDash(t *testing.T) {
	inv := parse(t, nil, "lock", "--wait", "2s", "--grace", "1s", "--mode", "combined", "job", "--", "true", "--mode", "x", "--", "-v")
	c := inv.cmd.(lockCmd)
	assert.Equal(t, "job", c.id)
	assert.Equal(t, lockstep.ModeCombined, c.mode)
	assert.Equal(t, 2*time.Second, c.wait)
	assert.Equal(t, time.Second, c.grace)
	assert.Equal(t, []string{"true", "--mode", "x", "--", "-v"}, c.argv)
	assert.True(t, strings.HasSuffix(c.path, "/true"), c.path)

	c = parse(t, nil, "lock", "job", "--", "true").cmd.(lockCmd)
	assert.Equal(t, waitForever, c.wait, "without --wait: until interrupted")
	assert.Equal(t, 10*time.Second, c.grace)
	assert.Equal(t, lockstep.ModeUnknown, c.mode, "without --mode: follow the phase")
	assert.Equal(t, time.Duration(0), parse(t, nil, "lock", "--wait", "0", "job", "--", "true").cmd.(lockCmd).wait)
}
