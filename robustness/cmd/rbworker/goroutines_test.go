package main

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/robustness/history"
)

// --goroutines and --local-handoff are accepted together, and refused one
// by one where they make no sense, each error saying what to do.
func TestParseFlags_GoroutinesAndLocalHandoffRefusals(t *testing.T) {
	base := []string{"--process", "w1", "--flag-file", "f", "--register", "http://127.0.0.1:1", "--history", "h"}
	c, err := parseFlags(append(append([]string{}, base...), "--goroutines", "2", "--local-handoff", "2", "--plant", "reuse-token"))
	if err != nil || c.goroutines != 2 || c.localHandoff != 2 || c.plant != reuseToken {
		t.Fatalf("--goroutines 2 --local-handoff 2: %+v, %v", c, err)
	}
	if c, err := parseFlags(base); err != nil || c.goroutines != 1 || c.localHandoff != 0 {
		t.Fatalf("defaults: %+v, %v", c, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--goroutines", "0"}, "give 1 or more"},
		{[]string{"--goroutines", "2", "--lockd", "http://x"}, "drop --lockd"},
		{[]string{"--goroutines", "2", "--lockman-history", "l", "--handover-dir", "d"}, "--lockman-history"},
		{[]string{"--goroutines", "2", "--manager-share", "0.5"}, "--manager-share 0"},
		{[]string{"--goroutines", "2", "--dc", "dc1", "--local-share", "0.5"}, "--local-share 0"},
		{[]string{"--goroutines", "2", "--local-handoff", "-1"}, "give 0 (off)"},
		{[]string{"--goroutines", "2", "--local-handoff", "2", "--bypass-migration"}, "drop --bypass-migration"},
		{[]string{"--local-handoff", "2", "--lockd", "http://x"}, "drop --bypass-migration, --lockd"},
		{[]string{"--local-handoff", "2"}, "add --goroutines 2"},
		{[]string{"--goroutines", "2", "--plant", "reuse-token"}, "add --local-handoff"},
	} {
		if _, err := parseFlags(append(append([]string{}, base...), tc.args...)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
}

// reuse-token plants the cohort's ReuseToken on the migration Locker.
func TestPlant_ReuseTokenSetsTheCohortKnob(t *testing.T) {
	p, err := plant(reuseToken)
	if err != nil || p.migration == nil || p.migration.Cohort == nil || !p.migration.Cohort.ReuseToken || p.migration.Cohort.Unbounded {
		t.Fatalf("planting %s: %+v, %v", reuseToken, p, err)
	}
}

// A goroutine handed another's store hold (the same owner) shares its
// lease: its deadline counts from that hold's claim and renewals, not from
// its own Lock call, which began after the claim; the next store
// acquisition (another owner) counts from its own Lock call again. Lease
// events are recorded in the history of the goroutine that holds the id.
func TestTracker_HandedHoldKeepsTheStoreHoldsLease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.jsonl")
	hw, err := history.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := &worker{c: config{process: "w"}, name: "w", clk: history.NewClock(0), hw: hw, histErr: &atomic.Int64{}}
	tr := &tracker{w: w, window: int64(time.Second)}
	w.tr = tr
	win := int64(time.Second)
	g0 := tr.begin("w/g0", "l", nil, []string{"l"}, 100)
	tr.held(g0, fakeLock{owner: "w.1", token: 7})
	g1 := tr.begin("w/g1", "l", nil, []string{"l"}, 200) // waits in the line behind g0
	if d := tr.deadline(g0); d != 100+win {
		t.Fatalf("g0 before a renewal: %d, want its Lock call's %d", d, 100+win)
	}
	tr.ObserveLease(context.Background(), lockstep.LeaseEvent{ID: "l", Owner: "w.1", Mode: lockstep.ModeNew, Renewed: true})
	tr.end(g0) // Unlock: the store hold is handed to g1
	tr.held(g1, fakeLock{owner: "w.1", token: 8})
	if d := tr.deadline(g1); d != 100+win {
		t.Fatalf("g1 handed the hold: deadline %d, want the store hold's %d (its renewal was sent no earlier than g0's Lock call), not g1's own call's %d",
			d, 100+win, 200+win)
	}
	tr.end(g1)
	g0 = tr.begin("w/g0", "l", nil, []string{"l"}, 300)
	g1 = tr.begin("w/g1", "l", nil, []string{"l"}, 400)
	tr.held(g0, fakeLock{owner: "w.1", token: 9})
	tr.end(g0)
	tr.held(g1, fakeLock{owner: "w.2", token: 10}) // the bound reached: a store acquisition of g1's own
	if d := tr.deadline(g1); d != 400+win {
		t.Fatalf("g1's own store acquisition: deadline %d, want its Lock call's %d", d, 400+win)
	}
	tr.ObserveLease(context.Background(), lockstep.LeaseEvent{ID: "l", Owner: "w.2", Mode: lockstep.ModeNew, Renewed: true})
	tr.end(g1)
	if err := hw.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := history.ReadFile(path)
	if err != nil || len(recs) != 2 || recs[0].Process != "w/g0" || recs[0].InvokeNS != 100 || recs[1].Process != "w/g1" || recs[1].InvokeNS != 400 {
		t.Fatalf("renew records %+v, %v: want one in g0's name sent from 100, one in g1's from 400", recs, err)
	}
}

// fakeLock is what tracker.held reads of a lock.
type fakeLock struct {
	lockstep.Lock
	owner string
	token int64
}

func (l fakeLock) Owner() string       { return l.owner }
func (l fakeLock) Mode() lockstep.Mode { return lockstep.ModeNew }
func (l fakeLock) Token() int64        { return l.token }
