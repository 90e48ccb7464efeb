package main

import (
	"strings"
	"testing"
	"time"
)

// --lockd takes every lock through lockd, so the in-process options that
// cannot apply are refused, each saying what to drop; --min-hold stays
// within --hold.
func TestParseFlags_LockdRefusals(t *testing.T) {
	base := []string{"--process", "w1", "--flag-file", "f", "--register", "http://127.0.0.1:1", "--history", "h"}
	c, err := parseFlags(append(append([]string{}, base...), "--lockd", "http://127.0.0.1:2", "--lockd-session-ttl", "2s"))
	if err != nil || len(c.lockdURLs) != 1 || c.lockdURLs[0] != "http://127.0.0.1:2" || c.lockdSessionTTL != 2*time.Second {
		t.Fatalf("--lockd: %+v, %v", c, err)
	}
	c, err = parseFlags(append(append([]string{}, base...), "--lockd", "http://127.0.0.1:2,http://127.0.0.1:3", "--moves-history", "m"))
	if err != nil || len(c.lockdURLs) != 2 || c.lockdURLs[1] != "http://127.0.0.1:3" || c.movesPath != "m" {
		t.Fatalf("--lockd with two lockds: %+v, %v", c, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lockd", "http://x", "--plant", "half-ttl-lease"}, "drop --plant"},
		{[]string{"--lockd", "http://x", "--bypass-migration"}, "--bypass-migration"},
		{[]string{"--lockd", "http://x", "--dc", "dc1"}, "--dc"},
		{[]string{"--lockd", "http://x", "--lockd-session-ttl", "-1s"}, "--lockd-session-ttl"},
		{[]string{"--lockd", "http://x,http://y"}, "--moves-history"},
		{[]string{"--lockd", "http://x", "--moves-history", "m"}, "--moves-history"},
		{[]string{"--min-hold", "2s"}, "--min-hold"},
		{[]string{"--min-hold", "-1s"}, "--min-hold"},
	} {
		if _, err := parseFlags(append(append([]string{}, base...), tc.args...)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error naming %s", tc.args, err, tc.want)
		}
	}
}

// A lockd hold's deadline is when Lock returned until the client knows of
// a loss, then that instant; the watcher stops with the hold.
func TestLockdDeadline_TheInstantTheClientKnew(t *testing.T) {
	h := &hold{invoke: 5}
	if d := lockdDeadline(h, 0); d != 5 {
		t.Fatalf("before Lock returned: %d", d)
	}
	h.heldAt, h.loss = 10, &lossWatch{done: make(chan struct{}), stop: make(chan struct{})}
	if d := lockdDeadline(h, 0); d != 10 {
		t.Fatalf("held, no loss known: %d", d)
	}
	if d := lockdDeadline(h, 20*time.Millisecond); d != 10 {
		t.Fatalf("held, no loss within the wait: %d", d)
	}
	h.loss.at = 42
	close(h.loss.done)
	if d := lockdDeadline(h, 0); d != 42 {
		t.Fatalf("lost: %d, want the instant the client knew", d)
	}
	h.loss.end()
}
