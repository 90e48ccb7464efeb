package main

import (
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lockstep-go/lockstep/robustness/cluster"
	"github.com/lockstep-go/lockstep/robustness/nemesis"
)

// ciArgs are CI's stage_robustness arguments (.ci/run): keep them equal.
var ciArgs = []string{"--dcs", "2", "--minutes", "7", "--seed", "21"}

// With --dcs 2 the run has every fleet and control, the DC ones included,
// and dc-partition among the kinds.
func TestDCs_AddTheDCFleetControlAndKind(t *testing.T) {
	o, err := parseOptions([]string{"--dcs", "2"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{o: o}
	segs := r.segments()
	if len(segs) != len(fleets)+len(controls) {
		t.Fatalf("%d segments, want every fleet and control", len(segs))
	}
	if !slices.Contains(o.kinds, nemesis.KindDCPartition) {
		t.Fatalf("kinds %v lack dc-partition", o.kinds)
	}
	for _, s := range segs {
		if s.name == "dc-scopes" && (s.manager != 0 || s.local == 0 || !s.dcs) {
			t.Errorf("dc-scopes: %+v, want DC-local locks and no lock-manager share", s)
		}
	}
}

// CI's arguments schedule every kind at least once in the fleets, the DC-scopes fleet
// has DC partitions only and two or more of them, and the planted control
// has the data centres apart for its whole window.
func TestDCs_CIScheduleCoversEveryKind(t *testing.T) {
	o, err := parseOptions(ciArgs, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.New(cluster.Config{IPOffset: 100, Dir: t.TempDir(), DCs: 2})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r := &runner{o: o, cluster: c, out: &out}
	segs := r.segments()
	if err := r.checkLengths(segs); err != nil {
		t.Fatal(err)
	}
	plans, missing, err := r.plan(segs)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("ROBUSTNESS_PRINT_SCHEDULE") != "" {
		t.Log("\n" + out.String())
	}
	if len(missing) > 0 {
		t.Fatalf("kinds not scheduled with %v: %v\n%s", ciArgs, missing, out.String())
	}
	// Not only the controls: the fleets alone draw every kind.
	inFleets := map[nemesis.Kind]bool{}
	for i, s := range segs {
		for _, e := range append(plans[i], s.lockdEvs...) { // the lockd track too
			if !s.control {
				inFleets[nemesis.KindOf(e.Nemesis)] = true
			}
		}
	}
	for _, k := range o.kinds {
		if !inFleets[k] {
			t.Errorf("kind %s scheduled in no fleet (only in a control) with %v", k, ciArgs)
		}
	}
	_, windows := r.lengths(segs)
	for i, s := range segs {
		switch s.name {
		case "dc-scopes":
			if len(plans[i]) < 2 {
				t.Errorf("dc-scopes: %d DC partitions, want at least 2", len(plans[i]))
			}
			for _, e := range plans[i] {
				if nemesis.KindOf(e.Nemesis) != nemesis.KindDCPartition {
					t.Errorf("dc-scopes: %s", e.Nemesis.Name())
				}
			}
		case "ctl-dc-local-quorum":
			if len(plans[i]) != 1 || plans[i][0].Hold < windows[i]-2e9 {
				t.Errorf("ctl-dc-local-quorum: %v in a window of %v", plans[i], windows[i])
			}
		}
	}
	t.Logf("%d segments, %s", len(segs), strconv.Quote(strings.Join(ciArgs, " ")))
}
