package main

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep/robustness/check"
	"github.com/lockstep-go/lockstep/robustness/cluster"
	"github.com/lockstep-go/lockstep/robustness/history"
	"github.com/lockstep-go/lockstep/robustness/nemesis"
)

// startProxies gives s's clients proxies to each of its lockds (to
// addresses nothing serves: the test only reads their addresses).
func startProxies(t *testing.T, s *lockdSet) {
	t.Helper()
	for _, c := range s.clients {
		for range s.procs {
			px, err := newProxy("127.0.0.1:1")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(px.Close)
			s.proxies[c] = append(s.proxies[c], px)
		}
	}
}

// A fleet's lockd clients: a Go client of l1 alone, then a Go and a
// Python client given both lockds, starting on l2; only the two fail over,
// record moves, and are the lockd-loss checker's movers.
func TestFleetLockdClients_OneSingleTwoFailingOver(t *testing.T) {
	f, _ := fleetByName("new")
	r := &runner{o: options{workers: 4}, outDir: t.TempDir()}
	s := r.newLockdSet(&f, 0)
	if want := []string{"new-w2", "new-w3", "new-w4"}; !slices.Equal(s.clients, want) || len(s.procs) != 2 {
		t.Fatalf("clients %v, %d lockds", s.clients, len(s.procs))
	}
	startProxies(t, s)
	if s.lockdOf["new-w2"] != 1 || s.lockdOf["new-w3"] != 2 || s.lockdOf["new-w4"] != 2 {
		t.Fatalf("lockds %v", s.lockdOf)
	}
	if !slices.Equal(s.movers(), []string{"new-w3", "new-w4"}) || s.isPython("new-w3") || !s.isPython("new-w4") {
		t.Fatalf("movers %v, python %v", s.movers(), s.python)
	}
	if a := s.addrs("new-w2"); len(a) != 1 || a[0] != s.proxies["new-w2"][0].Addr() {
		t.Fatalf("single client's lockds %v", a)
	}
	if a := s.addrs("new-w3"); len(a) != 2 || a[0] != s.proxies["new-w3"][1].Addr() || a[1] != s.proxies["new-w3"][0].Addr() {
		t.Fatalf("fail-over client's lockds %v: want l2's proxy, then l1's", a)
	}
	args := strings.Join(s.workerArgs("new-w3"), " ")
	if !strings.Contains(args, "--lockd http://"+s.proxies["new-w3"][1].Addr()+",http://") || !strings.Contains(args, "--moves-history") {
		t.Fatalf("rbworker args %s", args)
	}
	if args := strings.Join(s.workerArgs("new-w2"), " "); strings.Contains(args, ",") || strings.Contains(args, "--moves-history") {
		t.Fatalf("single client's rbworker args %s", args)
	}
	py := strings.Join(s.pythonArgs("new-w4", "http://reg", "h.jsonl", 8, time.Minute, 7, time.Second, 0), " ")
	if !strings.Contains(py, "--lockd "+s.proxies["new-w4"][1].Addr()+","+s.proxies["new-w4"][0].Addr()) || !strings.Contains(py, "--moves-history") ||
		!strings.Contains(py, "--lockd-session-ttl 2 ") || strings.Contains(py, "--plant") {
		t.Fatalf("python args %s", py)
	}
	if !pythonClients([]segment{f}) || pythonClients([]segment{{name: "x"}}) {
		t.Fatal("pythonClients")
	}
}

// The lockd control's Go client has l1 alone, its Python client starts on
// l2, with its own lock id and the planted skip-adopt; the control pauses
// l1, then l2, each after the other.
func TestLockdControlClients(t *testing.T) {
	c := ctlLockdIgnoresLost
	r := &runner{o: options{workers: 4}, outDir: t.TempDir()}
	s := r.newLockdSet(&c, 0)
	startProxies(t, s)
	if len(s.clients) != 2 || s.lockdOf[s.clients[0]] != 1 || s.lockdOf[s.clients[1]] != 2 || !s.isPython(s.clients[1]) ||
		!slices.Equal(s.movers(), s.clients[1:]) {
		t.Fatalf("clients %v, lockds %v, movers %v", s.clients, s.lockdOf, s.movers())
	}
	py := strings.Join(s.pythonArgs(s.clients[1], "http://reg", "h.jsonl", 2, time.Minute, 7, 7*time.Second, 7*time.Second), " ")
	if !strings.Contains(py, "--plant skip-adopt") || !strings.Contains(py, "--lock-prefix solo- --locks 1") {
		t.Fatalf("python args %s", py)
	}
	c.lk = s
	evs := c.events(r, &c, 10*time.Second)
	if len(evs) != 2 || evs[0].Nemesis.Name() != "pause-lockd l1" || evs[1].Nemesis.Name() != "pause-lockd l2" || evs[1].At < evs[0].At+evs[0].Hold {
		t.Fatalf("events %+v", evs)
	}
}

// A fail-over client is on the lockd its last finished move reached; a
// failed move leaves it where it was; a single client stays on its own.
func TestCurrentLockd_FollowsTheMoves(t *testing.T) {
	f, _ := fleetByName("new")
	r := &runner{o: options{workers: 4}, outDir: t.TempDir()}
	s := r.newLockdSet(&f, 0)
	startProxies(t, s)
	if err := os.MkdirAll(filepath.Join(s.dir, history.MovesDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if s.currentLockd("new-w3") != 2 || !slices.Equal(s.Clients(2), []string{"new-w3", "new-w4"}) {
		t.Fatalf("before any move: w3 on l%d, l2's clients %v", s.currentLockd("new-w3"), s.Clients(2))
	}
	w, err := history.Create(s.movesPath("new-w3"))
	if err != nil {
		t.Fatal(err)
	}
	l1 := "http://" + s.proxies["new-w3"][0].Addr()
	for _, m := range []history.Move{
		{Process: "new-w3", Lang: history.LangGo, From: "x", To: l1, BeganNS: 1, EndedNS: 2},
		{Process: "new-w3", Lang: history.LangGo, From: l1, BeganNS: 3, EndedNS: 4, Err: "no lockd"},
	} {
		if err := w.WriteMove(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if s.currentLockd("new-w3") != 1 || !slices.Equal(s.Clients(1), []string{"new-w2", "new-w3"}) || !slices.Equal(s.Clients(2), []string{"new-w4"}) {
		t.Fatalf("after a move to l1: w3 on l%d, l1's clients %v, l2's %v", s.currentLockd("new-w3"), s.Clients(1), s.Clients(2))
	}
}

// A control's later window has a history directory of its own: the set's
// clients' histories (which the strikes read), moves and lockd logs move
// there, and the last window's lockd events and counts are forgotten.
func TestLockdSetWindow_MovesToTheWindowsDirectory(t *testing.T) {
	c := ctlLockdIgnoresLost
	r := &runner{o: options{workers: 4}, outDir: t.TempDir()}
	s := r.newLockdSet(&c, 7)
	s.events = []check.LockdEvent{{Name: "pause-lockd l1"}}
	s.counts[nemesis.KindPauseLockd] = 1
	dir := filepath.Join(r.outDir, "08-ctl-lockd-ignores-lost-window2")
	s.window(dir)
	py := s.clients[1]
	if s.history[py] != filepath.Join(dir, py+".jsonl") || s.movesPath(py) != filepath.Join(dir, history.MovesDir, py+".jsonl") ||
		s.procs[0].log != filepath.Join(dir, "lockd-l1.log") || len(s.events) != 0 || len(s.counts) != 0 {
		t.Fatalf("after window: history %s, moves %s, log %s, events %v, counts %v", s.history[py], s.movesPath(py), s.procs[0].log, s.events, s.counts)
	}
}

// The fleets' lockds run with --local-handoff 8 --retain 20ms, so their
// fail-over clients move with locks the local-handoff layer granted; the
// control's run without.
func TestFleetLockd_TheFleetsRunLockdsWithLocalHandoffAndRetention(t *testing.T) {
	for name, want := range map[string]bool{"new": true, "combined+new": true} {
		f, _ := fleetByName(name)
		r := &runner{o: options{workers: 4}, outDir: t.TempDir(), cluster: &cluster.Cluster{}}
		s := r.newLockdSet(&f, 0)
		args := strings.Join(s.lockdArgs(s.procs[0], "ks", "peer.key"), " ")
		if got := strings.Contains(args, "--local-handoff 8 --retain 20ms"); got != want {
			t.Errorf("fleet %s: lockd args %q: local handoff and retention %v, want %v", name, args, got, want)
		}
	}
}

// The fleets new and combined+new are at --evidence use, and so are their
// lockds; the other fleets run without it.
func TestFleets_EvidenceFleetsAndTheirLockds(t *testing.T) {
	for _, f := range fleets {
		want := f.name == "new" || f.name == "combined+new"
		if got := f.evidence == "use"; got != want {
			t.Errorf("fleet %s: evidence %q, want use %v", f.name, f.evidence, want)
		}
		if f.lockd.clients == 0 {
			continue
		}
		r := &runner{o: options{workers: 4, ttl: 4 * time.Second, maxSkew: time.Second}, outDir: t.TempDir(), cluster: &cluster.Cluster{}}
		s := r.newLockdSet(&f, 0)
		args := strings.Join(s.lockdArgs(s.procs[0], "ks", "peer.key"), " ")
		if got := strings.Contains(args, "--evidence use"); got != want {
			t.Errorf("fleet %s: lockd args %q: --evidence use %v, want %v", f.name, args, got, want)
		}
	}
}

// Every segment with lockds runs its workers at the lockds' lock TTL,
// whatever the runner's --ttl: one TTL per table (docs/algorithms.md, A7),
// which exclusion itself assumes (Theorem 3 compares one Locker's cell
// life with another's lease window).
func TestSegments_OneTTLPerTable(t *testing.T) {
	r := &runner{o: options{ttl: 5 * time.Second}}
	for _, s := range append(append([]segment{}, fleets...), append(controls, ctlLockdIgnoresLost)...) {
		if s.lockd.clients == 0 {
			continue
		}
		if ttl := cmp.Or(s.ttl, r.o.ttl); ttl != s.lockd.lockTTL {
			t.Errorf("segment %s: workers' TTL %v, lockds' %v: want one TTL", s.name, ttl, s.lockd.lockTTL)
		}
	}
}
