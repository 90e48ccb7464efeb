//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/cassandra/clustertest"
	"github.com/lockstep-go/lockstep/locktest/clusterlock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

// The commands run in-process against the cluster in CASSANDRA_HOSTS, e.g.
//
//	CASSANDRA_HOSTS=127.0.0.1 go test -tags integration ./cmd/lockctl/...
//
// With the integration tag and no CASSANDRA_HOSTS the test fails rather
// than skips.

const itKeyspace = "lockstep_it_lockctl"

// lockctl runs one command line against the cluster and returns its exit
// code and output.
func lockctl(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = newApp(strings.NewReader(stdin), &out, &errOut).run(t.Context(), append([]string{"--keyspace", itKeyspace}, args...))
	t.Logf("lockctl %s -> exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errOut.String())
	return code, out.String(), errOut.String()
}

func mustLockctl(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := lockctl(t, "", args...)
	if code != exitOK {
		t.Fatalf("lockctl %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

func TestLockctl_AgainstCassandra(t *testing.T) {
	hosts := splitList(os.Getenv("CASSANDRA_HOSTS"))
	if len(hosts) == 0 {
		t.Fatal("CASSANDRA_HOSTS is empty: the integration tag needs a running Cassandra " +
			"(scripts/cassandra up, then CASSANDRA_HOSTS=127.0.0.1)")
	}
	defer clusterlock.Take(t, false)()
	cluster := gocql.NewCluster(hosts...)
	cluster.Timeout = 20 * time.Second
	cluster.ConnectTimeout = 20 * time.Second
	session, err := cluster.CreateSession()
	if err != nil {
		t.Fatalf("connecting to %v: %v", hosts, err)
	}
	defer session.Close()
	ctx := t.Context()
	if err := session.Query("DROP KEYSPACE IF EXISTS " + itKeyspace).WithContext(ctx).Exec(); err != nil {
		t.Fatal(err)
	}

	// No keyspace yet: schema apply without --replication says to add it
	// (Cassandra's own message alone, "Keyspace '...' doesn't exist", does
	// not), and a read command under --output json fails as a JSON document.
	code, _, stderr := lockctl(t, "", "schema", "apply")
	if code != exitFailed || !strings.Contains(stderr, "doesn't exist") || !strings.Contains(stderr, "add --replication") {
		t.Errorf("schema apply, keyspace missing: exit %d, stderr %q", code, stderr)
	}
	code, stdout, _ := lockctl(t, "", "--output", "json", "fleet")
	var failed jsonError
	if err := json.Unmarshal([]byte(stdout), &failed); err != nil || code != exitFailed || failed.Error.ExitCode != exitFailed ||
		!strings.Contains(failed.Error.Message, "schema apply") {
		t.Errorf("fleet --output json, keyspace missing: exit %d, stdout %q (%v)", code, stdout, err)
	}

	// SimpleStrategy on one data centre, NetworkTopologyStrategy with a
	// factor per data centre on several (scripts/cassandra up --dcs 2).
	topo, err := clustertest.Read(ctx, session)
	if err != nil {
		t.Fatal(err)
	}
	repl := clustertest.Flag(topo.Replication(3))
	for range 2 { // idempotent
		if out := mustLockctl(t, "schema", "apply", "--replication", repl); !strings.Contains(out, "keyspace "+itKeyspace+": legacy_main") {
			t.Errorf("schema apply output: %q", out)
		}
	}
	store, err := cassandra.New(session, itKeyspace)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("InspectAndForcedRelease", func(t *testing.T) { inspectAndRelease(t, store) })
	t.Run("PhaseAndFleet", func(t *testing.T) { phaseAndFleet(t, store) })
	t.Run("ConnectionFlagsAndJSON", func(t *testing.T) { connectionFlagsAndJSON(t, hosts, topo.DCs()[0]) })
	t.Run("LocalDCInEachDataCentre", func(t *testing.T) { localDCInEachDataCentre(t, store, topo) })
}

// localDCInEachDataCentre runs lockctl routed to each data centre in turn
// (--local-dc, with that data centre's nodes as --hosts): each sees the
// global lock the library holds, whichever data centre took it, and a
// consistency that cannot keep locks global is refused before connecting.
// On a cluster of two data centres (scripts/cassandra up --dcs 2) this is
// lockctl across them; on one, it is the one data centre.
func localDCInEachDataCentre(t *testing.T, store lockstep.Store, topo clustertest.Topology) {
	ctx := t.Context()
	l, err := queuelock.New(store, &queuelock.Options{ProcessID: "it-global-holder", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(context.Background())
	const id = "report/nightly"
	h, err := l.Lock(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Unlock(context.Background())
	for _, dc := range topo.DCs() {
		conn := []string{"--hosts", strings.Join(topo.Hosts[dc], ","), "--local-dc", dc}
		var lock struct {
			Queue struct {
				State  string `json:"state"`
				Holder string `json:"holder"`
			} `json:"queue"`
		}
		out := mustLockctl(t, append(conn, "--output", "json", "inspect", id)...)
		if err := json.Unmarshal([]byte(out), &lock); err != nil {
			t.Fatal(err)
		}
		if lock.Queue.State != "held" || !strings.HasPrefix(lock.Queue.Holder, "it-global-holder") {
			t.Errorf("--local-dc %s: inspect %s: %+v, want held by it-global-holder", dc, id, lock.Queue)
		}
		code, _, stderr := lockctl(t, "", append(conn, "--consistency", "local_quorum", "inspect", id)...)
		if code == exitOK || !strings.Contains(stderr, "cannot keep a global lock global") {
			t.Errorf("--local-dc %s --consistency local_quorum: exit %d, stderr %q, want the global-scope refusal", dc, code, stderr)
		}
	}
}

// connectionFlagsAndJSON reaches the node through --port and DC-aware
// routing to the cluster's first data centre (scripts/cassandra's
// SimpleSnitch names the one DC datacenter1; --dcs 2 names them dc1 and
// dc2) and decodes the JSON of the read commands.
func connectionFlagsAndJSON(t *testing.T, hosts []string, dc string) {
	conn := []string{"--hosts", strings.Join(hosts, ","), "--port", "9042", "--local-dc", dc, "--consistency", "quorum", "--output", "json"}
	var phase struct {
		Phase  string   `json:"phase"`
		Allows []string `json:"allows"`
	}
	if err := json.Unmarshal([]byte(mustLockctl(t, append(conn, "phase", "get")...)), &phase); err != nil {
		t.Fatal(err)
	}
	if phase.Phase != "new" || strings.Join(phase.Allows, ",") != "combined,new" {
		t.Errorf("phase get --output json: %+v", phase)
	}
	var fleet struct {
		Processes []any `json:"processes"`
		Moves     []struct {
			To      string `json:"to"`
			Blocked bool   `json:"blocked"`
		} `json:"moves"`
	}
	if err := json.Unmarshal([]byte(mustLockctl(t, append(conn, "fleet")...)), &fleet); err != nil {
		t.Fatal(err)
	}
	if len(fleet.Processes) != 0 || len(fleet.Moves) != 1 || fleet.Moves[0].To != "combined" || fleet.Moves[0].Blocked {
		t.Errorf("fleet --output json: %+v", fleet)
	}
	var lock struct {
		Lock  string `json:"lock"`
		Queue struct {
			State string `json:"state"`
		} `json:"queue"`
	}
	if err := json.Unmarshal([]byte(mustLockctl(t, append(conn, "inspect", "invoice/42")...)), &lock); err != nil {
		t.Fatal(err)
	}
	if lock.Lock != "invoice/42" || lock.Queue.State != "free" {
		t.Errorf("inspect --output json: %+v", lock)
	}
	// A port nothing listens on: exit 3, naming it.
	code, _, stderr := lockctl(t, "", "--hosts", hosts[0], "--port", "1", "--timeout", "3s", "phase", "get")
	if code != exitUnreachable || !strings.Contains(stderr, "cannot reach Cassandra at "+hosts[0]+" port 1 within --timeout 3s") {
		t.Errorf("unreachable port: exit %d, stderr %q", code, stderr)
	}
}

// inspectAndRelease takes a queue lock for a process that then dies (its
// store fails every request, so its cells stay until their TTL), checks that
// inspect shows the owner, and that release --force --yes deletes both its
// cells so another process acquires at once.
func inspectAndRelease(t *testing.T, store lockstep.Store) {
	ctx := t.Context()
	faulty, err := model.NewFaulty(store, model.FaultConfig{FailBefore: 1})
	if err != nil {
		t.Fatal(err)
	}
	faulty.SetEnabled(false)
	dead, err := queuelock.New(faulty, &queuelock.Options{ProcessID: "it-dead", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close(context.Background())
	const id = "invoice/42"
	h, err := dead.Lock(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	faulty.SetEnabled(true)

	out := mustLockctl(t, "inspect", id)
	for _, want := range []string{"held by " + h.Owner() + ", 1 in line", "owner  " + h.Owner(), "queue  " + h.Owner(),
		"legacy lock (tables legacy_main, legacy_shadow; modes legacy, combined): free"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q", want)
		}
	}

	other, err := queuelock.New(store, &queuelock.Options{ProcessID: "it-other", TTL: time.Minute}) // one TTL per table
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(context.Background())
	if _, err := other.TryLock(ctx, id); !errors.Is(err, lockstep.ErrLocked) {
		t.Fatalf("TryLock beside the dead owner = %v, want ErrLocked", err)
	}

	code, out, log := lockctl(t, "", "release", "--force", "--yes", id)
	if code != exitOK || !strings.Contains(out, "deleted 2 of 2 cell(s)") ||
		strings.Count(log, "lockctl release: deleted cell") != 2 || !strings.Contains(log, "table=queue_lock") {
		t.Fatalf("release: exit %d", code)
	}
	if out := mustLockctl(t, "inspect", id); !strings.Contains(out, "queue lock (table queue_lock; modes new, combined): free\n") {
		t.Errorf("inspect after release does not show the lock free")
	}
	l, err := other.TryLock(ctx, id)
	if err != nil {
		t.Fatalf("TryLock after release --force: %v", err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if out := mustLockctl(t, "release", "--force", "--yes", id); !strings.Contains(out, "nothing to release") {
		t.Errorf("release of a free lock: %q", out)
	}
}

// phaseAndFleet moves the phase with a legacy process in the census: legacy
// -> combined passes, combined -> new is refused naming it, and passes once
// it is gone.
func phaseAndFleet(t *testing.T, store lockstep.Store) {
	if out := mustLockctl(t, "phase", "get"); !strings.HasPrefix(out, "phase: legacy ") {
		t.Errorf("phase of a fresh keyspace: %q", out)
	}
	proc, err := migration.New(store, migration.Static(lockstep.ModeLegacy), &migration.Options{ProcessID: "it-web-1", Host: "it-host"})
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close(context.Background())
	deadline := time.Now().Add(30 * time.Second)
	for {
		out := mustLockctl(t, "fleet")
		if strings.Contains(out, "1 live process(es)") && strings.Contains(out, "it-web-1") && strings.Contains(out, "legacy") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the process never showed in the census")
		}
		time.Sleep(200 * time.Millisecond)
	}

	if out := mustLockctl(t, "phase", "set", "combined"); !strings.Contains(out, "phase: legacy -> combined") {
		t.Errorf("phase set combined: %q", out)
	}
	code, _, stderr := lockctl(t, "", "phase", "set", "new")
	if code != exitRefused || !strings.Contains(stderr, "it-web-1 on it-host (configured legacy)") {
		t.Errorf("phase set new beside a legacy process: exit %d, stderr %q", code, stderr)
	}
	// With a drain it waits, saying every 5 s what for, then refuses.
	code, _, stderr = lockctl(t, "", "phase", "set", "--drain", "6s", "new")
	if code != exitRefused || !strings.Contains(stderr, "lockctl: phase set combined -> new: draining, 5s of 6s: "+
		"waiting for 1 process(es) to stop using a mode phase new forbids: it-web-1 on it-host (uses legacy)\n") {
		t.Errorf("phase set --drain 6s new beside a legacy process: exit %d, stderr %q", code, stderr)
	}
	if err := proc.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if out := mustLockctl(t, "fleet"); !strings.Contains(out, "0 live process(es)") {
		t.Errorf("fleet after the process left: %q", out)
	}
	if out := mustLockctl(t, "phase", "set", "new"); !strings.Contains(out, "phase: combined -> new") {
		t.Errorf("phase set new: %q", out)
	}
	if out := mustLockctl(t, "phase", "get"); !strings.HasPrefix(out, "phase: new (processes may take locks in: combined, new)") {
		t.Errorf("phase get: %q", out)
	}
}
