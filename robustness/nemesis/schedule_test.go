package nemesis

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep/robustness/cluster"
)

func testCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	c, err := cluster.New(cluster.Config{IPOffset: 60, Dir: t.TempDir(), DCs: 2})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func plan(seed uint64) Plan {
	return Plan{Seed: seed, Window: 5 * time.Minute, Kinds: AllKinds, TTL: 4 * time.Second, MaxSkew: time.Second,
		Clients: func(l string) *PauseClient { return &PauseClient{Label: l} }}
}

func names(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(e.At.String() + " " + e.Hold.String() + " " + e.Nemesis.Name() + "\n")
	}
	return b.String()
}

func TestScheduleIsSeeded(t *testing.T) {
	c := testCluster(t)
	a, err := Schedule(c, plan(7))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Schedule(c, plan(7))
	if names(a) != names(b) {
		t.Fatalf("same seed, different schedules:\n%s\n%s", names(a), names(b))
	}
	d, _ := Schedule(c, plan(8))
	if names(a) == names(d) {
		t.Fatal("seeds 7 and 8 gave the same schedule")
	}
}

func TestScheduleRotatesEveryKindAndHoldsPastTheTTL(t *testing.T) {
	c := testCluster(t)
	p := plan(3)
	evs, err := Schedule(c, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) < len(AllKinds) {
		t.Fatalf("%d events in 5 minutes, want at least %d", len(evs), len(AllKinds))
	}
	seen := map[string]bool{}
	for i, e := range evs[:len(AllKinds)] {
		k := string(KindOf(e.Nemesis))
		if seen[k] {
			t.Fatalf("event %d repeats %q before every kind occurred:\n%s", i, k, names(evs))
		}
		seen[k] = true
		if e.Hold < p.TTL {
			t.Errorf("%s held %v < TTL %v", e.Nemesis.Name(), e.Hold, p.TTL)
		}
		if strings.HasPrefix(e.Nemesis.Name(), "pause-client") && e.Hold <= p.TTL+time.Second {
			t.Errorf("client pause held %v, want well past the TTL %v", e.Hold, p.TTL)
		}
		if i > 0 && e.At < evs[i-1].At+evs[i-1].Hold {
			t.Errorf("event %d starts before event %d ends", i, i-1)
		}
	}
	// A later segment continues the rotation.
	p.Start = 2
	p.Segment = 1
	later, _ := Schedule(c, p)
	if KindOf(later[0].Nemesis) != KindOf(evs[2].Nemesis) {
		t.Fatalf("Start 2 begins with %s, want the third kind %s", later[0].Nemesis.Name(), evs[2].Nemesis.Name())
	}
}

func TestPartitionRules(t *testing.T) {
	c := testCluster(t)
	for i := range c.Nodes {
		c.Nodes[i].CGroup2 = "/sys/fs/cgroup/unified/lockstep-robust60/node" + string(rune('1'+i))
	}
	if _, err := cgroup2Mount(); err != nil {
		t.Skip(err)
	}
	rules, err := linkRules(c, Isolate(c, 2).Cuts(), "")
	if err != nil {
		t.Skip(err) // cgroup2 mounted elsewhere on this machine
	}
	want := []string{
		`ip daddr 127.0.0.62 tcp dport 7000 counter drop`,
		`ip daddr 127.0.0.61 tcp dport 7000 counter drop`,
	}
	joined := strings.Join(rules, "\n")
	if len(rules) != 4 {
		t.Fatalf("isolate(n2) on 3 nodes: %d rules, want 4:\n%s", len(rules), joined)
	}
	for _, w := range want {
		if !strings.Contains(joined, w) {
			t.Errorf("rules lack %q:\n%s", w, joined)
		}
	}
	if _, err := linkRules(c, []Cut{{1, 1}}, ""); err == nil {
		t.Error("a cut from a node to itself was accepted")
	}
	if _, err := NewLoss(c, 1, 2, 0); err == nil {
		t.Error("0% loss accepted")
	}
	if _, err := NewSlow(c, 1, 101); err == nil {
		t.Error("101% CPU accepted")
	}
}
