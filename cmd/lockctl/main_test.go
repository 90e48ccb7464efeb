package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
)

// runArgs runs lockctl in-process with a connect that fails the test: every
// command line here must be refused before anything connects.
func runArgs(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errOut)
	a.connect = func(context.Context, *options) (*conn, error) {
		t.Errorf("%q connected; it should have been refused first", args)
		return nil, errors.New("no cluster in unit tests")
	}
	code = a.run(context.Background(), args)
	return code, out.String(), errOut.String()
}

func TestRun_BadUsageExitsTwoWithOneLine(t *testing.T) {
	long := strings.Repeat("x", lockstep.MaxIDLen+1)
	cases := []struct {
		args []string
		want string // in stderr
	}{
		{nil, "missing command"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"schema"}, "schema needs a subcommand: schema apply or schema print"},
		{[]string{"schema", "drop"}, "schema needs a subcommand"},
		{[]string{"phase"}, "phase needs a subcommand: phase get or phase set"},
		{[]string{"inspect"}, "inspect: missing lock id"},
		{[]string{"inspect", "a", "b"}, "want one lock id, got 2 arguments"},
		{[]string{"inspect", "bad\x00id"}, "invalid lock id: contains a NUL byte"},
		{[]string{"inspect", "\xff"}, "invalid lock id: not valid UTF-8"},
		{[]string{"inspect", long}, "invalid lock id: 513 bytes"},
		{[]string{"inspect", ""}, "invalid lock id: empty"},
		{[]string{"release", "--yes", "res"}, "refusing without --force"},
		{[]string{"release", "--force"}, "release: missing lock id"},
		{[]string{"phase", "set"}, "missing mode"},
		{[]string{"phase", "set", "newest"}, `invalid mode: "newest"`},
		{[]string{"phase", "set", "new", "legacy"}, "want one mode"},
		{[]string{"phase", "set", "--drain", "-1s", "new"}, "--drain -1s must not be negative"},
		{[]string{"phase", "get", "now"}, "unexpected arguments"},
		{[]string{"fleet", "all"}, "unexpected arguments"},
		{[]string{"inspect", "--nope", "res"}, "unknown flag -nope"},
		{[]string{"--consistency", "MOSTLY", "fleet"}, `unknown consistency level "MOSTLY"`},
		{[]string{"--consistency", "ONE", "fleet"}, "reads and writes do not overlap"},
		{[]string{"--keyspace", "Locks; DROP", "fleet"}, "not a safe identifier"},
		{[]string{"--table", "queue=q", "fleet"}, `unknown table "queue"`},
		{[]string{"--table", "queue_lock=legacy_main", "fleet"}, "is used for both"},
		{[]string{"--timeout", "0s", "fleet"}, "--timeout 0s must be positive"},
		{[]string{"--hosts", ",", "fleet"}, "empty list"},
		{[]string{"schema", "print", "--replication", "class=SimpleStrategy"}, "SimpleStrategy takes exactly one option"},
		{[]string{"schema", "apply", "--replication", "rf"}, `"rf" is not K=V`},
		{[]string{"schema", "print", "--legacy-ttl", "1500ms"}, "not a whole number of seconds"},
	}
	for _, c := range cases {
		code, stdout, stderr := runArgs(t, c.args...)
		if code != exitUsage {
			t.Errorf("%q: exit %d, want %d (stderr %q)", c.args, code, exitUsage, stderr)
		}
		first, _, _ := strings.Cut(stderr, "\n")
		if !strings.HasPrefix(first, "lockctl: ") || !strings.Contains(first, c.want) {
			t.Errorf("%q: first stderr line %q, want it to contain %q", c.args, first, c.want)
		}
		if stdout != "" {
			t.Errorf("%q: wrote to stdout: %q", c.args, stdout)
		}
	}
}

func TestParse_GlobalFlagsBeforeOrAfterTheCommand(t *testing.T) {
	t.Setenv("CASSANDRA_HOSTS", "")
	for _, args := range [][]string{
		{"--hosts", "10.0.0.1,10.0.0.2:9142", "--keyspace", "ks", "--consistency", "local_quorum", "--timeout", "3s", "inspect", "res"},
		{"inspect", "res", "--hosts=10.0.0.1, 10.0.0.2:9142", "--keyspace", "ks", "--consistency", "LOCAL_QUORUM", "--timeout", "3s"},
		{"--keyspace", "ks", "inspect", "--hosts", "10.0.0.1,10.0.0.2:9142", "res", "--consistency=LOCAL_QUORUM", "-timeout=3s"},
	} {
		inv, err := parse(args)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		o := inv.opts
		if strings.Join(o.hosts, " ") != "10.0.0.1 10.0.0.2:9142" || o.keyspace != "ks" ||
			o.consistency != gocql.LocalQuorum || o.timeout != 3*time.Second {
			t.Errorf("%q: options %+v", args, *o)
		}
		if c, ok := inv.cmd.(inspectCmd); !ok || c.id != "res" {
			t.Errorf("%q: command %#v", args, inv.cmd)
		}
	}
}

func TestParse_Defaults(t *testing.T) {
	t.Setenv("CASSANDRA_HOSTS", "")
	inv, err := parse([]string{"fleet"})
	if err != nil {
		t.Fatal(err)
	}
	o := inv.opts
	if strings.Join(o.hosts, ",") != "127.0.0.1" || o.keyspace != "locks" || o.consistency != gocql.Quorum || o.timeout != 10*time.Second {
		t.Errorf("defaults: %+v", *o)
	}
	if o.tableNames().QueueLock != "queue_lock" || o.tableNames().FleetPhase != "fleet_phase" {
		t.Errorf("default tables: %+v", o.tableNames())
	}

	t.Setenv("CASSANDRA_HOSTS", " 127.0.0.2 ,127.0.0.3,")
	inv, err = parse([]string{"fleet"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(inv.opts.hosts, ","); got != "127.0.0.2,127.0.0.3" {
		t.Errorf("hosts from CASSANDRA_HOSTS: %q", got)
	}
}

func TestParse_IDAfterDoubleDashMayLookLikeAFlag(t *testing.T) {
	inv, err := parse([]string{"release", "--force", "--", "-odd-id"})
	if err != nil {
		t.Fatal(err)
	}
	if c := inv.cmd.(releaseCmd); c.id != "-odd-id" || c.yes {
		t.Errorf("got %+v", c)
	}
	if _, err := parse([]string{"inspect", "--", "a", "--full"}); err == nil {
		t.Error(`"inspect -- a --full": two ids accepted`)
	}
}

func TestParse_CommandFlags(t *testing.T) {
	inv, err := parse([]string{"phase", "set", "combined", "--drain", "90s"})
	if err != nil {
		t.Fatal(err)
	}
	if c := inv.cmd.(phaseSetCmd); c.mode != lockstep.ModeCombined || c.drain != 90*time.Second {
		t.Errorf("phase set: %+v", c)
	}
	inv, err = parse([]string{"release", "res", "--yes", "--force"})
	if err != nil {
		t.Fatal(err)
	}
	if c := inv.cmd.(releaseCmd); c.id != "res" || !c.yes {
		t.Errorf("release: %+v", c)
	}
	inv, err = parse([]string{"--table", "legacy_main=old_main", "--table", "fleet_phase=phase2", "schema", "apply",
		"--replication", "class=NetworkTopologyStrategy, dc1=3, dc2=3"})
	if err != nil {
		t.Fatal(err)
	}
	c := inv.cmd.(schemaApply)
	if len(c.replication) != 3 || c.replication["dc2"] != "3" {
		t.Errorf("replication %v", c.replication)
	}
	if tn := inv.opts.tableNames(); tn.LegacyMain != "old_main" || tn.FleetPhase != "phase2" || tn.QueueLock != "queue_lock" {
		t.Errorf("tables %+v", tn)
	}
}

func TestRun_HelpGoesToStdoutAndExitsZero(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"help", "release"}, {"release", "--help"}, {"phase", "set", "-h"}} {
		code, stdout, stderr := runArgs(t, args...)
		if code != exitOK || stderr != "" || !strings.HasPrefix(stdout, "usage: lockctl") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	_, stdout, _ := runArgs(t, "help", "release")
	if !strings.Contains(stdout, "--force") || !strings.Contains(stdout, "--hosts") {
		t.Errorf("release help lacks its flags:\n%s", stdout)
	}
}

func TestRun_SchemaPrintNeedsNoCluster(t *testing.T) {
	code, stdout, stderr := runArgs(t, "--keyspace", "ks", "schema", "print", "--replication", "class=SimpleStrategy,replication_factor=3")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"CREATE KEYSPACE IF NOT EXISTS ks", "'replication_factor': '3'", "CREATE TABLE IF NOT EXISTS ks.queue_lock", "ks.fleet_phase"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("schema print lacks %q:\n%s", want, stdout)
		}
	}
}

func TestRun_UnreachableClusterIsOneLineNamingTheHosts(t *testing.T) {
	var out, errOut bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errOut)
	// Port 1 on loopback: nothing listens there, so the dial is refused at once.
	code := a.run(context.Background(), []string{"--hosts", "127.0.0.1:1", "--timeout", "2s", "inspect", "res"})
	if code != exitFailed {
		t.Fatalf("exit %d, want %d", code, exitFailed)
	}
	msg := errOut.String()
	if strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "lockctl: cannot reach Cassandra at 127.0.0.1:1: ") {
		t.Errorf("stderr %q, want one line naming the host", msg)
	}
}
