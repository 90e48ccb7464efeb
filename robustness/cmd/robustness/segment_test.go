package main

import "testing"

func TestMissedControl_OnlyAControlsUncaughtWindowGetsAnother(t *testing.T) {
	control, fleet := segment{name: "ctl-x", control: true}, segment{name: "new"}
	for _, c := range []struct {
		name string
		rs   result
		want bool
	}{
		{"no checker found a violation", result{seg: control, verdict: "control NOT caught: no checker found a violation"}, true},
		{"a checker that must catch did not", result{seg: control, verdict: "control NOT caught by access (found by: mutex)"}, true},
		{"caught", result{seg: control, ok: true, verdict: "control caught by counter (2 violations)"}, false},
		{"a fleet's violation", result{seg: fleet, verdict: "1 violations"}, false},
		{"a control's harness failure", result{seg: control, verdict: "not finished: every worker failed"}, false},
	} {
		if got := missedControl(c.rs); got != c.want {
			t.Errorf("%s: missedControl = %v, want %v", c.name, got, c.want)
		}
	}
}
