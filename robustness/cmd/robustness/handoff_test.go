package main

import (
	"strings"
	"testing"
)

// The local-handoff line sums the fleets with local handoff on, leaves the
// controls out, says 0 when none handed off, and is absent without such a
// fleet.
func TestHandoffSummary_CountsTheFleetsOnly(t *testing.T) {
	fleet := segment{name: "combined+new", handoffWorkers: 2}
	ctl := segment{name: "ctl-skip-intention", handoffWorkers: 2, control: true}
	var b strings.Builder
	handoffSummary(&b, []result{{seg: fleet, handoffs: 7}, {seg: ctl, handoffs: 40}, {seg: segment{name: "new"}, handoffs: 3}})
	if got := b.String(); got != "robustness: local handoffs 7 (fleets combined+new)\n" {
		t.Fatalf("summary %q", got)
	}
	b.Reset()
	handoffSummary(&b, []result{{seg: fleet}})
	if got := b.String(); got != "robustness: local handoffs 0 (fleets combined+new)\n" {
		t.Fatalf("summary %q", got)
	}
	b.Reset()
	handoffSummary(&b, []result{{seg: segment{name: "new"}}})
	if b.Len() != 0 {
		t.Fatalf("summary without such a fleet: %q", b.String())
	}
}

// The segments' handoff workers are plain workers given flags rbworker
// accepts together (goroutines and local handoff, no manager share, a
// plant of their own); the others keep the manager share and the
// segment's plant. A fleet and a control run local handoff.
func TestSegments_HandoffWorkersArePlainAndGetTheirOwnFlags(t *testing.T) {
	r := &runner{o: options{fleets: fleetNames(2), controls: true, dcs: 2, workers: 4, managerShare: 0.5}}
	var fleets, ctls int
	for _, s := range r.segments() {
		if s.handoffWorkers == 0 {
			continue
		}
		if s.control {
			ctls++
		} else {
			fleets++
		}
		n := r.workerCount(&s)
		// The lockd clients, then the lock-manager workers, are the last
		// (lockd.go): the plain workers come first.
		if plain := n - s.lockman - s.lockd.clients; s.handoffWorkers > plain {
			t.Errorf("%s: %d handoff workers reach past the plain ones", s.name, s.handoffWorkers)
		}
		for i := 0; i < n; i++ {
			a := strings.Join(s.plainArgs(i), " ")
			if i < s.handoffWorkers {
				want := "--goroutines 2 --local-handoff 2"
				if s.handoffPlant != "" {
					want += " --plant " + s.handoffPlant
				}
				if a != want {
					t.Errorf("%s w%d: %q, want %q", s.name, i, a, want)
				}
			} else if strings.Contains(a, "--goroutines") || s.manager > 0 && !strings.Contains(a, "--manager-share") ||
				s.plant != "" && !strings.Contains(a, "--plant "+s.plant) {
				t.Errorf("%s w%d: %q", s.name, i, a)
			}
		}
	}
	if fleets != 1 || ctls != 1 {
		t.Fatalf("%d fleets and %d controls with local handoff, want 1 and 1", fleets, ctls)
	}
}
