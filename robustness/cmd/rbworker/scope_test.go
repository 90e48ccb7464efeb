package main

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/robustness/history"
)

func TestParseFlags_RefusesLocalLocksWithoutADataCentre(t *testing.T) {
	base := []string{"--process", "w1", "--flag-file", "f", "--register", "http://127.0.0.1:1", "--history", "h"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--local-share", "0.5"}, "--local-share needs --dc"},
		{[]string{"--dc", "dc1", "--local-share", "1.5"}, "give a share from 0 to 1"},
		{[]string{"--dc", "dc1", "--local-share", "0.6", "--manager-share", "0.6"}, "add up to more than 1"},
	} {
		if _, err := parseFlags(append(append([]string{}, base...), tc.args...)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want %q", tc.args, err, tc.want)
		}
	}
	c, err := parseFlags(append(base, "--dc", "dc2", "--local-share", "0.5"))
	if err != nil || c.dc != "dc2" || c.localShare != 0.5 {
		t.Fatalf("--dc dc2 --local-share 0.5: %+v, %v", c, err)
	}
}

// A DC-local acquisition is recorded under the data centre's key, tracks
// the lease of the row the queue lock keeps it in, and writes its own
// registers.
func TestLocalOp_KeysTheLockByItsDataCentre(t *testing.T) {
	w := &worker{c: config{locks: 3, dc: "dc2"}, rng: rand.New(rand.NewPCG(1, 2))}
	for range 50 {
		o := w.localOp()
		id, dc, ok := history.SplitLocal(o.key)
		if !ok || dc != "dc2" || !strings.HasPrefix(id, "local-") {
			t.Fatalf("key %q: want local-N@dc2", o.key)
		}
		if len(o.ids) != 1 || o.ids[0] != lockstep.LocalTo("dc2").Row(id) || !o.writes {
			t.Fatalf("op %+v: want the lease of row %q and register writes", o, lockstep.LocalTo("dc2").Row(id))
		}
	}
}

// The planted global-at-local-quorum defect hides the DC-local store's
// scope, so the Lockers take it for a global store.
func TestHideScope_LooksGlobal(t *testing.T) {
	if got := lockstep.ScopeOf(hideScope{}); !got.IsGlobal() {
		t.Fatalf("ScopeOf(hideScope) = %v, want global", got)
	}
	p, err := plant("global-at-local-quorum")
	if err != nil || !p.globalAtLocal {
		t.Fatalf("plant global-at-local-quorum: %+v, %v", p, err)
	}
}
