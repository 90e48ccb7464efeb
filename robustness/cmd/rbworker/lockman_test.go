package main

import (
	"strings"
	"testing"
)

func TestParseFlags_LockmanNeedsItsHandoverDir(t *testing.T) {
	base := []string{"--process", "w1", "--flag-file", "f", "--register", "http://127.0.0.1:1", "--history", "h"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lockman-history", "l.jsonl"}, "needs --handover-dir"},
		{[]string{"--handover-dir", "d"}, "add --lockman-history"},
		{[]string{"--lockman-plant", "fake-deadlock"}, "add --lockman-history"},
	} {
		if _, err := parseFlags(append(append([]string{}, base...), tc.args...)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want %q", tc.args, err, tc.want)
		}
	}
	c, err := parseFlags(append(base, "--lockman-history", "l.jsonl", "--handover-dir", "d"))
	if err != nil || c.lockmanHistory != "l.jsonl" || c.handoverDir != "d" {
		t.Fatalf("lock-manager flags: %+v, %v", c, err)
	}
}

// The planted defects of the lock-manager worker are parsed by name; an
// unknown name is refused.
func TestParseLockmanPlants(t *testing.T) {
	if _, err := parseLockmanPlants("no-such"); err == nil {
		t.Fatal("an unknown defect was accepted")
	}
	p, err := parseLockmanPlants("fake-deadlock,early-leave")
	if err != nil || !p["fake-deadlock"] || !p["early-leave"] {
		t.Fatalf("plants %v, %v", p, err)
	}
}
