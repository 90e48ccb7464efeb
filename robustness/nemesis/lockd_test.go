package nemesis

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeLockds records what the lockd nemeses do.
type fakeLockds struct {
	log     []string
	holding bool
}

func (f *fakeLockds) Clients(n int) []string { return []string{"c" + string(rune('0'+n))} }
func (f *fakeLockds) Holding(string) bool    { return f.holding }
func (f *fakeLockds) Kill(n int) error       { f.log = append(f.log, "kill"); return nil }
func (f *fakeLockds) Restore(c string) error { f.log = append(f.log, "restore "+c); return nil }
func (f *fakeLockds) Cut(c string) error     { f.log = append(f.log, "cut "+c); return nil }
func (f *fakeLockds) Restart(context.Context, int) error {
	f.log = append(f.log, "restart")
	return nil
}
func (f *fakeLockds) Signal(n int, s syscall.Signal) error {
	f.log = append(f.log, s.String())
	return nil
}

func lockdPlan(seed uint64, l Lockds) LockdPlan {
	return LockdPlan{Seed: seed, Window: 2 * time.Minute, Kinds: LockdKinds, Lockds: l, Count: 2,
		Clients: []string{"c1", "c2"}, LockTTL: 6 * time.Second, SessionTTL: 2 * time.Second}
}

// The lockd track is seeded, rotates every lockd kind before repeating one,
// and holds each fault past what it must outlast: a pause past the lock
// TTL, a cut past the session TTL.
func TestLockdSchedule_SeededRotatingAndLongEnough(t *testing.T) {
	f := &fakeLockds{}
	a, err := LockdSchedule(lockdPlan(7, f))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := LockdSchedule(lockdPlan(7, f))
	if names(a) != names(b) {
		t.Fatalf("same seed, different tracks:\n%s\n%s", names(a), names(b))
	}
	if len(a) < len(LockdKinds) {
		t.Fatalf("%d events in 2 minutes", len(a))
	}
	seen := map[Kind]bool{}
	for i, e := range a {
		k := KindOf(e.Nemesis)
		if i < len(LockdKinds) {
			if seen[k] {
				t.Fatalf("kind %s twice before every kind once:\n%s", k, names(a))
			}
			seen[k] = true
		}
		switch k {
		case KindPauseLockd:
			if e.Hold <= 6*time.Second {
				t.Errorf("pause of %v, not past the lock TTL", e.Hold)
			}
		case KindCutLockdClient:
			if e.Hold <= 2*time.Second {
				t.Errorf("cut of %v, not past the session TTL", e.Hold)
			}
		case KindKillLockd:
		default:
			t.Errorf("kind %q in a lockd track", k)
		}
		if _, ok := e.Nemesis.(Affecting); !ok {
			t.Errorf("%s does not say whom it affects", e.Nemesis.Name())
		}
		if i > 0 && e.At < a[i-1].At+a[i-1].Hold {
			t.Errorf("events overlap: %s", names(a))
		}
	}
	if _, err := LockdSchedule(LockdPlan{Seed: 1, Window: time.Minute, Kinds: []Kind{KindIsolate}, Lockds: f, Count: 1,
		Clients: []string{"c1"}, LockTTL: time.Second, SessionTTL: time.Second}); err == nil || !strings.Contains(err.Error(), "not a lockd kind") {
		t.Fatalf("a cluster kind in a lockd track: %v", err)
	}
}

// Each lockd nemesis injects and heals once, whatever is called twice, and
// names the clients it affects.
func TestLockdNemeses_InjectAndHealOnce(t *testing.T) {
	ctx := context.Background()
	f := &fakeLockds{holding: true}
	for _, n := range []Affecting{&KillLockd{L: f, N: 1}, &PauseLockd{L: f, N: 2}, &CutLockdClient{L: f, Client: "c9"}} {
		for range 2 {
			if err := n.Inject(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for range 2 {
			if err := n.Heal(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if len(n.Affected()) != 1 || !IsLockd(KindOf(n)) {
			t.Errorf("%s: affected %v, kind %s", n.Name(), n.Affected(), KindOf(n))
		}
	}
	want := "kill restart stopped (signal) continued cut c9 restore c9"
	if got := strings.Join(f.log, " "); got != want {
		t.Fatalf("did %q, want %q", got, want)
	}
}
