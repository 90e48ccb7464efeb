package main

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// testApp returns an app that reads the environment from env only and
// whose connect fails the test: every command line given to it must be
// refused or handled before anything connects.
func testApp(t *testing.T, env map[string]string) (*app, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errOut)
	a.getenv = func(k string) string { return env[k] }
	a.connect = func(context.Context, *options) (*conn, error) {
		t.Errorf("connected; the command line should have been refused first")
		return nil, errors.New("no cluster in unit tests")
	}
	return a, &out, &errOut
}

// runArgs runs lockctl in-process with an empty environment and a connect
// that fails the test.
func runArgs(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	a, out, errOut := testApp(t, nil)
	code = a.run(context.Background(), args)
	return code, out.String(), errOut.String()
}

// invocation is what a command line parses to.
type invocation struct {
	cmd  command
	opts *options
}

// parse parses args with the environment env, capturing the command
// instead of running it; a refused line fails the test.
func parse(t *testing.T, env map[string]string, args ...string) *invocation {
	t.Helper()
	a, _, errOut := testApp(t, env)
	var inv invocation
	a.exec = func(_ context.Context, c command, o *options) error {
		inv.cmd, inv.opts = c, o
		return nil
	}
	code := a.run(context.Background(), args)
	require.Equal(t, exitOK, code, "%q: stderr %s", args, errOut)
	require.NotNil(t, inv.cmd, "%q ran no command", args)
	return &inv
}

func TestRun_BadUsageExitsTwoWithOneLine(t *testing.T) {
	long := strings.Repeat("x", lockstep.MaxIDLen+1)
	cases := []struct {
		args []string
		want string // in stderr's first line
	}{
		{nil, "missing command"},
		{[]string{"frobnicate"}, `unknown command "frobnicate" for "lockctl"`},
		{[]string{"schema"}, "schema needs a subcommand: schema apply or schema print"},
		{[]string{"schema", "drop"}, "schema needs a subcommand"},
		{[]string{"phase"}, "phase needs a subcommand: phase get or phase set"},
		{[]string{"inspect"}, "inspect: missing lock id"},
		{[]string{"inspect", "a", "b"}, "want one lock id, got 2 arguments"},
		{[]string{"inspect", "bad\x00id"}, "invalid lock id: contains a NUL byte"},
		{[]string{"inspect", "\xff"}, "invalid lock id: not valid UTF-8"},
		{[]string{"inspect", long}, "invalid lock id: 513 bytes"},
		{[]string{"inspect", ""}, "invalid lock id: empty"},
		{[]string{"release", "--force"}, "release: missing lock id"},
		{[]string{"phase", "set"}, "missing mode"},
		{[]string{"phase", "set", "newest"}, `invalid mode: "newest"`},
		{[]string{"phase", "set", "new", "legacy"}, "want one mode"},
		{[]string{"phase", "set", "--drain", "-1s", "new"}, "--drain -1s must not be negative"},
		{[]string{"phase", "get", "now"}, "unexpected arguments"},
		{[]string{"fleet", "all"}, "unexpected arguments"},
		{[]string{"inspect", "--nope", "res"}, "unknown flag: --nope"},
		{[]string{"--consistency", "MOSTLY", "fleet"}, `unknown consistency level "MOSTLY" (want QUORUM or ALL)`},
		{[]string{"--consistency", "ONE", "fleet"}, "reads and writes do not overlap"},
		// The fleet's state (census, phase) and its locks are global.
		{[]string{"--consistency", "LOCAL_QUORUM", "fleet"}, "cannot keep a global lock global"},
		{[]string{"--keyspace", "Locks; DROP", "fleet"}, "not a safe identifier"},
		{[]string{"--table", "queue=q", "fleet"}, `unknown table "queue"`},
		{[]string{"--table", "queue_lock=legacy_main", "fleet"}, "is used for both"},
		{[]string{"--timeout", "0s", "fleet"}, "--timeout 0s must be positive"},
		{[]string{"--port", "0", "fleet"}, `invalid argument "0" for "--port" flag: want a port number from 1 to 65535`},
		{[]string{"--port", "nine", "fleet"}, `invalid argument "nine" for "--port" flag: want a port number from 1 to 65535`},
		{[]string{"--hosts", ",", "fleet"}, "no host given: want host[:port],... e.g. 10.0.0.1,10.0.0.2:9043"},
		{[]string{"--hosts", "", "fleet"}, "no host given: want host[:port],... e.g. 10.0.0.1,10.0.0.2:9043"},
		{[]string{"--output", "yaml", "fleet"}, `unknown output "yaml" (want text or json)`},
		{[]string{"--username", "ops", "fleet"}, "--username ops has no password: set LOCKSTEP_PASSWORD or name a file with --password-file"},
		{[]string{"--password-file", "/nonexistent/pw", "fleet"}, "--password-file: open /nonexistent/pw"},
		{[]string{"--tls-cert", "c.pem", "fleet"}, "--tls-cert and --tls-key go together"},
		{[]string{"schema", "print", "--replication", "class=SimpleStrategy"}, "SimpleStrategy takes exactly one option"},
		{[]string{"schema", "apply", "--replication", "rf"}, `"rf" is not K=V`},
		{[]string{"schema", "print", "--legacy-ttl", "1500ms"}, "not a whole number of seconds"},
		{[]string{"version", "extra"}, `unknown command "extra" for "lockctl version"`},
	}
	for _, c := range cases {
		code, stdout, stderr := runArgs(t, c.args...)
		assert.Equal(t, exitUsage, code, "%q: stderr %q", c.args, stderr)
		first, _, _ := strings.Cut(stderr, "\n")
		assert.True(t, strings.HasPrefix(first, "lockctl: ") && strings.Contains(first, c.want),
			"%q: first stderr line %q, want it to contain %q", c.args, first, c.want)
		assert.Contains(t, stderr, "Run 'lockctl --help' for usage.", "%q", c.args)
		assert.Empty(t, stdout, "%q wrote to stdout", c.args)
	}
}

func TestRun_MistypedCommandSuggestsTheRightOne(t *testing.T) {
	for typed, want := range map[string]string{"fleat": "fleet", "inspec": "inspect", "relase": "release", "verison": "version"} {
		code, stdout, stderr := runArgs(t, typed)
		assert.Equal(t, exitUsage, code)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, "lockctl: unknown command \""+typed+"\" for \"lockctl\"\n")
		assert.Contains(t, stderr, "Did you mean this?\n\t"+want+"\n", "%s", typed)
	}
	code, _, stderr := runArgs(t, "phase", "gte")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "Did you mean this?\n\tget\n")
}

func TestRun_PasswordFlagIsRefusedWithoutEchoingIt(t *testing.T) {
	for _, args := range [][]string{
		{"--password", "s3cret", "fleet"}, {"fleet", "--password=s3cret"}, {"-password", "s3cret", "fleet"}, {"--passwd=s3cret", "fleet"},
	} {
		code, stdout, stderr := runArgs(t, args...)
		assert.Equal(t, exitUsage, code, "%q", args)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, "--password is not accepted", "%q", args)
		assert.Contains(t, stderr, "LOCKSTEP_PASSWORD")
		assert.Contains(t, stderr, "--password-file")
		assert.NotContains(t, stderr, "s3cret", "%q: the password was echoed", args)
	}
	// After "--" it is a lock id, and --password-file is a flag of its own.
	inv := parse(t, map[string]string{"LOCKSTEP_PASSWORD": "pw"}, "--username", "u", "inspect", "--", "--password")
	assert.Equal(t, "--password", inv.cmd.(inspectCmd).id)
}

func TestParse_GlobalFlagsBeforeOrAfterTheCommand(t *testing.T) {
	for _, args := range [][]string{
		{"--hosts", "10.0.0.1,10.0.0.2:9142", "--keyspace", "ks", "--consistency", "all", "--timeout", "3s", "inspect", "res"},
		{"inspect", "res", "--hosts=10.0.0.1, 10.0.0.2:9142", "--keyspace", "ks", "--consistency", "ALL", "--timeout", "3s"},
		{"--keyspace", "ks", "inspect", "--hosts", "10.0.0.1,10.0.0.2:9142", "res", "--consistency=ALL", "--timeout=3s"},
	} {
		inv := parse(t, nil, args...)
		o := inv.opts
		assert.Equal(t, []string{"10.0.0.1", "10.0.0.2:9142"}, o.Hosts, "%q", args)
		assert.Equal(t, "ks", o.Keyspace)
		assert.Equal(t, gocql.All, o.Consistency)
		assert.Equal(t, 3*time.Second, o.Timeout)
		assert.Equal(t, inspectCmd{id: "res"}, inv.cmd, "%q", args)
	}
}

func TestParse_Defaults(t *testing.T) {
	o := parse(t, nil, "fleet").opts
	assert.Equal(t, []string{"127.0.0.1"}, o.Hosts)
	assert.Equal(t, 9042, o.Port)
	assert.Equal(t, "locks", o.Keyspace)
	assert.Equal(t, gocql.Quorum, o.Consistency)
	assert.Equal(t, 10*time.Second, o.Timeout)
	assert.Equal(t, "text", o.output)
	assert.False(t, o.TLS)
	assert.Equal(t, "queue_lock", o.tableNames().QueueLock)
	assert.Equal(t, "fleet_phase", o.tableNames().FleetPhase)

	o = parse(t, map[string]string{"CASSANDRA_HOSTS": " 127.0.0.2 ,127.0.0.3,"}, "fleet").opts
	assert.Equal(t, []string{"127.0.0.2", "127.0.0.3"}, o.Hosts, "hosts from CASSANDRA_HOSTS")
}

func TestParse_IDAfterDoubleDashMayLookLikeAFlag(t *testing.T) {
	inv := parse(t, nil, "release", "--force", "--", "-odd-id")
	assert.Equal(t, releaseCmd{id: "-odd-id"}, inv.cmd)
	code, _, stderr := runArgs(t, "inspect", "--", "a", "--full")
	assert.Equal(t, exitUsage, code, `"inspect -- a --full": two ids accepted`)
	assert.Contains(t, stderr, "want one lock id, got 2 arguments")
}

func TestParse_CommandFlags(t *testing.T) {
	inv := parse(t, nil, "phase", "set", "combined", "--drain", "90s")
	assert.Equal(t, phaseSetCmd{mode: lockstep.ModeCombined, drain: 90 * time.Second}, inv.cmd)
	inv = parse(t, nil, "release", "res", "--yes", "--force")
	assert.Equal(t, releaseCmd{id: "res", yes: true}, inv.cmd)
	inv = parse(t, nil, "inspect", "--full", "res")
	assert.Equal(t, inspectCmd{id: "res", full: true}, inv.cmd)
	inv = parse(t, nil, "--table", "legacy_main=old_main", "--table", "fleet_phase=phase2", "schema", "apply",
		"--replication", "class=NetworkTopologyStrategy, dc1=3, dc2=3")
	c := inv.cmd.(schemaApply)
	assert.Len(t, c.replication, 3)
	assert.Equal(t, "3", c.replication["dc2"])
	tn := inv.opts.tableNames()
	assert.Equal(t, "old_main", tn.LegacyMain)
	assert.Equal(t, "phase2", tn.FleetPhase)
	assert.Equal(t, "queue_lock", tn.QueueLock)
}

func TestRun_ReleaseWithoutForceIsRefusedBeforeConnecting(t *testing.T) {
	code, stdout, stderr := runArgs(t, "release", "--yes", "res")
	assert.Equal(t, exitRefused, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "lockctl: release: refusing without --force")
}

func TestRun_HelpGoesToStdoutAndExitsZero(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"help", "release"}, {"release", "--help"}, {"phase", "set", "-h"}} {
		code, stdout, stderr := runArgs(t, args...)
		assert.Equal(t, exitOK, code, "%q", args)
		assert.Empty(t, stderr, "%q", args)
		assert.Contains(t, stdout, "Usage:\n  lockctl", "%q", args)
	}
	_, stdout, _ := runArgs(t, "help", "release")
	assert.Contains(t, stdout, "--force")
	assert.Contains(t, stdout, "--hosts")
	_, stdout, _ = runArgs(t, "--help")
	for _, cmd := range []string{"schema", "inspect", "fleet", "phase", "release", "lock", "version", "completion"} {
		assert.Contains(t, stdout, "\n  "+cmd+" ", "the overview lacks %s", cmd)
	}
}

func TestRun_SchemaPrintNeedsNoCluster(t *testing.T) {
	code, stdout, stderr := runArgs(t, "--keyspace", "ks", "schema", "print", "--replication", "class=SimpleStrategy,replication_factor=3")
	require.Equal(t, exitOK, code, stderr)
	for _, want := range []string{"CREATE KEYSPACE IF NOT EXISTS ks", "'replication_factor': '3'", "CREATE TABLE IF NOT EXISTS ks.queue_lock", "ks.fleet_phase"} {
		assert.Contains(t, stdout, want)
	}
}

func TestRun_VersionNamesTheModuleAndGo(t *testing.T) {
	code, stdout, stderr := runArgs(t, "version")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "lockctl ")
	assert.Contains(t, stdout, "lockstep "+lockstep.Version+"\n", "the release, also in a devel build")
	assert.Regexp(t, `(?m)^go1\.\d+`, stdout)
}

func TestRun_CompletionForEveryShell(t *testing.T) {
	for shell, want := range map[string]string{"bash": "__start_lockctl", "zsh": "#compdef lockctl", "fish": "complete -c lockctl", "powershell": "Register-ArgumentCompleter"} {
		code, stdout, stderr := runArgs(t, "completion", shell)
		require.Equal(t, exitOK, code, "%s: %s", shell, stderr)
		assert.Contains(t, stdout, want, shell)
	}
	code, _, _ := runArgs(t, "completion", "tcsh")
	assert.Equal(t, exitUsage, code)
}

func TestRun_UnreachableClusterExitsThreeNamingHostsAndWhatToCheck(t *testing.T) {
	var out, errOut bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errOut)
	a.getenv = func(string) string { return "" }
	// Port 1 on loopback: nothing listens there, so the dial is refused at once.
	start := time.Now()
	code := a.run(context.Background(), []string{"--hosts", "127.0.0.1:1", "--timeout", "2s", "inspect", "res"})
	assert.Less(t, time.Since(start), 10*time.Second)
	require.Equal(t, exitUnreachable, code, errOut.String())
	msg := errOut.String()
	assert.Equal(t, 1, strings.Count(msg, "\n"), "want one line: %q", msg)
	assert.True(t, strings.HasPrefix(msg, "lockctl: cannot reach Cassandra at 127.0.0.1:1 within --timeout 2s: "), msg)
	assert.Contains(t, msg, "check --hosts and --port")
	assert.Contains(t, msg, "--tls")
	assert.Empty(t, out.String())
}

func TestWriteVersion_NamesALocalReplacement(t *testing.T) {
	var b bytes.Buffer
	writeVersion(&b, &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: lockctlModule, Version: "v1.2.0"},
		Deps:     []*debug.Module{{Path: libraryModule, Version: "v1.2.0", Replace: &debug.Module{Path: "../..", Version: "(devel)"}}},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}}})
	assert.Regexp(t, `^lockctl v1\.2\.0 commit 0123456789abcdef0123456789abcdef01234567\nlockstep `+regexp.QuoteMeta(lockstep.Version)+
		`\nlibrary github.com/lockstep-go/lockstep from ../.. \(a local replacement\)\ngo1.26.8 \S+/\S+\n$`, b.String())
	b.Reset()
	writeVersion(&b, &debug.BuildInfo{GoVersion: "go1.27.0", Main: debug.Module{Path: lockctlModule, Version: "v1.3.0"},
		Deps: []*debug.Module{{Path: libraryModule, Version: "v1.3.0"}}})
	assert.Contains(t, b.String(), "library github.com/lockstep-go/lockstep v1.3.0\n")
	assert.Contains(t, b.String(), "lockctl v1.3.0 commit not recorded (a build from the module version v1.3.0: its tag names the commit)\n")
}
