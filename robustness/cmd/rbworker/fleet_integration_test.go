//go:build integration

package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/robustness/register"
)

// These tests run rbworker processes against a real cluster
// (CASSANDRA_HOSTS, schema applied) and a register in the test process.
// RBWORKER_DURATION sets each fleet's run (default 20s).

func hosts(t *testing.T) string {
	t.Helper()
	h := os.Getenv("CASSANDRA_HOSTS")
	if h == "" {
		t.Fatal("CASSANDRA_HOSTS is empty: start a cluster (scripts/cassandra up), apply the schema (lockctl schema apply) and export CASSANDRA_HOSTS")
	}
	return h
}

func runDuration(t *testing.T) time.Duration {
	if s := os.Getenv("RBWORKER_DURATION"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("RBWORKER_DURATION: %v", err)
		}
		return d
	}
	return 20 * time.Second
}

// build compiles rbworker into a temporary directory.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "rbworker")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// setPhase moves the fleet phase, one step at a time, to target.
func setPhase(t *testing.T, target lockstep.Mode) {
	t.Helper()
	cluster := gocql.NewCluster(strings.Split(hosts(t), ",")...)
	cluster.Consistency = gocql.Quorum
	cluster.Logger = log.New(io.Discard, "", 0)
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	store, err := cassandra.New(s, "locks")
	if err != nil {
		t.Fatal(err)
	}
	c, err := migration.NewController(store, &migration.ControllerOptions{Drain: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for {
		p, err := c.Get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Pending() && p.Mode == target {
			return
		}
		next := lockstep.ModeCombined
		if p.Mode == lockstep.ModeCombined {
			next = target
		}
		if err := c.Set(ctx, next); err != nil {
			t.Fatalf("phase %v -> %v: %v", p, next, err)
		}
	}
}

// member is one worker of a fleet.
type member struct {
	mode  string
	extra []string
}

// startHook, when set, is called with the started worker processes (in
// member order) and the register; it runs while they work.
var startHook func([]*exec.Cmd, *register.Server)

// fleet is a finished run: its history directory and the register's log.
type fleet struct {
	dir   string
	ops   []register.Op
	epoch time.Time
}

// runFleet starts the register and one rbworker per member, waits for them,
// and saves the register's log beside the histories.
func runFleet(t *testing.T, bin string, locks int, d time.Duration, members []member) fleet {
	t.Helper()
	dir := t.TempDir()
	epoch := time.Now()
	srv, err := register.StartAt("127.0.0.1:0", epoch)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var wg sync.WaitGroup
	var cmds []*exec.Cmd
	for i, m := range members {
		flagFile := filepath.Join(dir, fmt.Sprintf("w%d.flag", i))
		if err := os.WriteFile(flagFile, []byte(m.mode+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"--hosts", hosts(t), "--process", fmt.Sprintf("w%d", i), "--locks", fmt.Sprint(locks),
			"--flag-file", flagFile, "--register", srv.URL(), "--history", filepath.Join(dir, fmt.Sprintf("w%d.jsonl", i)),
			"--duration", d.String(), "--seed", fmt.Sprint(i + 1), "--epoch-unix-ns", fmt.Sprint(epoch.UnixNano())}, m.extra...)
		cmd := exec.Command(bin, args...)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		wg.Go(func() {
			err := cmd.Wait()
			t.Logf("w%d (%s %v): %v %s", i, m.mode, m.extra, err, strings.TrimSpace(out.String()))
		})
	}
	if startHook != nil {
		startHook(cmds, srv)
	}
	wg.Wait()
	f := fleet{dir: dir, ops: srv.Ops(), epoch: epoch}
	if err := register.Save(filepath.Join(dir, "register-ops.jsonl"), f.ops); err != nil {
		t.Fatal(err)
	}
	if keep := os.Getenv("RBWORKER_KEEP"); keep != "" {
		target := filepath.Join(keep, strings.ReplaceAll(t.Name(), "/", "_"))
		os.RemoveAll(target)
		if out, err := exec.Command("cp", "-r", dir, target).CombinedOutput(); err != nil {
			t.Logf("keeping histories: %v %s", err, out)
		}
	}
	return f
}
