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

// unlockLostLock is a lockd-like lock whose Unlock reports the lock lost:
// its Lost closes in the Unlock, or before it when lostFirst.
type unlockLostLock struct {
	lost chan struct{}
}

func (l *unlockLostLock) ID() string                   { return "L" }
func (l *unlockLostLock) Owner() string                { return "s/l-1" }
func (l *unlockLostLock) Mode() lockstep.Mode          { return lockstep.ModeUnknown }
func (l *unlockLostLock) Lost() <-chan struct{}        { return l.lost }
func (l *unlockLostLock) Unlock(context.Context) error { l.close(); return lockstep.ErrLost }
func (l *unlockLostLock) close() {
	select {
	case <-l.lost:
	default:
		close(l.lost)
	}
}

// A lockd hold whose Unlock, invoked while its Lost was open, reports it
// lost is recorded as lost in the Unlock (InUnlock), from the Unlock's
// invocation, with the instant the watcher saw Lost close (KnownNS, not
// before the invocation); one whose Lost had closed before the Unlock is
// not.
func TestRelease_ALossInTheUnlockIsRecordedAsSuch(t *testing.T) {
	for _, lostFirst := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "w.jsonl")
		hw, err := history.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := &worker{c: config{process: "w", requestTimeout: time.Second}, name: "w", clk: history.NewClock(0), hw: hw, histErr: &atomic.Int64{}}
		w.tr = &tracker{w: w, lockd: true}
		l := &unlockLostLock{lost: make(chan struct{})}
		h := w.tr.begin("w", "L", nil, []string{"L"}, w.clk.Now())
		w.tr.held(h, l)
		if lostFirst {
			l.close()
			h.loss.known(time.Second) // the watcher saw it
		}
		w.release(h, l)
		w.tr.end(h)
		hw.Close()
		recs, err := history.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 2 || recs[0].Op != history.Lost || recs[1].Op != history.Release {
			t.Fatalf("lostFirst %v: records %+v", lostFirst, recs)
		}
		lost, rel := recs[0], recs[1]
		if lostFirst {
			if lost.InUnlock || lost.KnownNS != 0 {
				t.Fatalf("lost before the Unlock, recorded as in it: %+v", lost)
			}
			continue
		}
		if !lost.InUnlock || lost.InvokeNS != rel.InvokeNS || lost.KnownNS < rel.InvokeNS {
			t.Fatalf("lost in the Unlock: lost %+v, release %+v", lost, rel)
		}
	}
}
