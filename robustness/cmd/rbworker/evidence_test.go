package main

import (
	"strings"
	"testing"

	"github.com/lockstep-go/lockstep/queuelock"
)

// --evidence is read as its three settings, off by default, and refused
// with what to do when it is none of them or comes without fencing; a
// combined Locker's queue half takes at most record of it.
func TestParseFlags_Evidence(t *testing.T) {
	base := []string{"--process", "w1", "--flag-file", "f", "--register", "http://127.0.0.1:1", "--history", "h"}
	if c, err := parseFlags(base); err != nil || c.evidence != queuelock.EvidenceOff {
		t.Fatalf("defaults: %+v, %v", c, err)
	}
	for _, e := range []queuelock.Evidence{queuelock.EvidenceOff, queuelock.EvidenceRecord, queuelock.EvidenceUse} {
		c, err := parseFlags(append(append([]string{}, base...), "--evidence", e.String()))
		if err != nil || c.evidence != e {
			t.Errorf("--evidence %v: %+v, %v", e, c.evidence, err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--evidence", "on"}, `--evidence "on": give off, record or use`},
		{[]string{"--evidence", "use", "--fencing=false"}, "--evidence use needs --fencing"},
	} {
		if _, err := parseFlags(append(append([]string{}, base...), tc.args...)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
	if halfEvidence(queuelock.EvidenceUse) != queuelock.EvidenceRecord || halfEvidence(queuelock.EvidenceOff) != queuelock.EvidenceOff {
		t.Error("a combined Locker's queue half records at use, and nothing at off")
	}
}
