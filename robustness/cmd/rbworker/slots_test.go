package main

import (
	"strings"
	"testing"
)

// Every slot's roles close cycles: in a P slot each id pair is taken by
// two peers in opposite orders, and over n−1 rounds every two peers meet;
// in an R slot (n ≥ 3) three peers take dl-0..dl-2 around a ring; in a T
// slot exactly one peer gives.
func TestRoleIn_SlotsCloseCycles(t *testing.T) {
	for n := 1; n <= 6; n++ {
		met := map[[2]int]bool{}
		for k := int64(0); k < 40; k++ {
			for _, plan := range []string{"P", "R", "T", "PRPT"} {
				kind := plan[k%int64(len(plan))]
				var units, gives int
				firsts := map[string]string{} // first id → second id
				for j := 0; j < n; j++ {
					r := roleIn(plan, k, j, n)
					if r.give {
						gives++
					}
					if r.unit() {
						units++
						if r.first == r.second {
							t.Fatalf("n %d k %d plan %s peer %d: %+v takes one id twice", n, k, plan, j, r)
						}
						if _, dup := firsts[r.first]; dup {
							t.Fatalf("n %d k %d plan %s: two peers take %s first", n, k, plan, r.first)
						}
						firsts[r.first] = r.second
					}
				}
				switch {
				case kind == 'T':
					if gives != 1 || units != 0 {
						t.Fatalf("n %d k %d plan %s: %d givers, %d units", n, k, plan, gives, units)
					}
				case kind == 'R' && n >= 3:
					if units != 3 || firsts["dl-0"] != "dl-1" || firsts["dl-1"] != "dl-2" || firsts["dl-2"] != "dl-0" {
						t.Fatalf("n %d k %d: ring %v", n, k, firsts)
					}
				default:
					if units != n-n%2 {
						t.Fatalf("n %d k %d plan %s: %d peers in pairs", n, k, plan, units)
					}
					for a, b := range firsts {
						if firsts[b] != a {
							t.Fatalf("n %d k %d plan %s: %s→%s has no partner taking %s→%s", n, k, plan, a, b, b, a)
						}
					}
				}
			}
			if n >= 2 {
				for j := 0; j < n; j++ {
					for q := j + 1; q < n; q++ {
						rj, rq := roleIn("P", k, j, n), roleIn("P", k, q, n)
						if rj.unit() && rj.first == rq.second && rj.second == rq.first {
							met[[2]int{j, q}] = true
						}
					}
				}
			}
		}
		if want := n * (n - 1) / 2; len(met) != want {
			t.Errorf("n %d: %d pairs of peers met in P slots, want %d", n, len(met), want)
		}
	}
}

func TestSlotOf(t *testing.T) {
	for _, tc := range []struct{ now, k int64 }{{0, 0}, {1, 1}, {int64(dlSlot), 1}, {int64(dlSlot) + 1, 2}} {
		if k, start := slotOf(tc.now); k != tc.k || start != tc.k*int64(dlSlot) || start < tc.now {
			t.Errorf("slotOf(%d) = %d, %d; want slot %d", tc.now, k, start, tc.k)
		}
	}
}

func TestParseFlags_LockmanSlots(t *testing.T) {
	base := []string{"--process", "w1", "--flag-file", "f", "--register", "http://127.0.0.1:1", "--history", "h",
		"--lockman-history", "l.jsonl", "--handover-dir", "d"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lockman-peers", "0"}, "give peers ≥ 1"},
		{[]string{"--lockman-peers", "2", "--lockman-index", "2"}, "index from 0 to peers−1"},
		{[]string{"--lockman-index", "-1"}, "index from 0 to peers−1"},
		{[]string{"--lockman-plan", ""}, "--lockman-plan is empty"},
		{[]string{"--lockman-plan", "PXT"}, `letter 'X'`},
	} {
		if _, err := parseFlags(append(append([]string{}, base...), tc.args...)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want %q", tc.args, err, tc.want)
		}
	}
	c, err := parseFlags(append(base, "--lockman-peers", "4", "--lockman-index", "3", "--lockman-plan", "PT"))
	if err != nil || c.lockmanPeers != 4 || c.lockmanIndex != 3 || c.lockmanPlan != "PT" {
		t.Fatalf("slot flags: %+v, %v", c, err)
	}
}
