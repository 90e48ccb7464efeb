package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/robustness/history"
)

func TestParseFlags_RefusesMissingAndBadInput(t *testing.T) {
	base := []string{"--process", "w1", "--flag-file", "f", "--register", "http://127.0.0.1:1", "--history", "h"}
	if _, err := parseFlags(base); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"--process", "--flag-file", "--register", "--history"} {
		args := append(append([]string{}, base[:2*i]...), base[2*i+2:]...)
		if _, err := parseFlags(args); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("without %s: err %v", want, err)
		}
	}
	if _, err := parseFlags(append(base, "--locks", "0")); err == nil {
		t.Error("--locks 0 accepted")
	}
	for _, extra := range [][]string{{"--coordinator", "127.0.0.2", "--dc", "dc1"}, {"--coordinator", "127.0.0.2", "--lockd", "http://127.0.0.1:2"}} {
		if _, err := parseFlags(append(base, extra...)); err == nil || !strings.Contains(err.Error(), "--coordinator") {
			t.Errorf("%v: err %v", extra, err)
		}
	}
	if c, err := parseFlags(append(base, "--coordinator", "127.0.0.2")); err != nil || c.coordinator != "127.0.0.2" {
		t.Errorf("--coordinator 127.0.0.2: %+v, %v", c, err)
	}
	c, _ := parseFlags(append(base, "--ttl", "5s"))
	if c.lockTimeout != 20*time.Second || !c.fencing || c.hold != time.Second {
		t.Errorf("defaults: %+v", c)
	}
}

func TestPlant_SetsTheNamedKnobsAndRefusesAnUnknownName(t *testing.T) {
	if _, err := plant("no-such-defect"); err == nil || !strings.Contains(err.Error(), "half-ttl-lease") {
		t.Fatalf("unknown defect: %v", err)
	}
	p, err := plant("half-ttl-lease")
	if err != nil || p.queue.Lease == nil || !p.queue.Lease.HalfTTLLease {
		t.Fatalf("planting half-ttl-lease: %+v, %v", p, err)
	}
	if w := window(config{ttl: time.Second, maxServerSkew: time.Second, planted: p}); w != int64(500*time.Millisecond) {
		t.Fatalf("planted window %v, want the old TTL/2", time.Duration(w))
	}
	if p, err := plant(""); err != nil || p.queue != nil || p.lease != nil {
		t.Fatalf("no plant: %+v, %v", p, err)
	}
}

func TestOnlyLost(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{lockstep.ErrLost, true},
		{fmt.Errorf("queuelock: %w", lockstep.ErrLost), true},
		{errors.Join(lockstep.ErrLost, context.DeadlineExceeded), false},
		{context.DeadlineExceeded, false},
	} {
		if got := onlyLost(c.err); got != c.want {
			t.Errorf("onlyLost(%v) = %v", c.err, got)
		}
	}
}

// TestTracker_DeadlineIsALowerBound follows one combined hold's lease
// events: each renewal counts from the report of the attempt before it, per
// half, and the deadline is the earlier half's.
func TestTracker_DeadlineIsALowerBound(t *testing.T) {
	hw, err := history.Create(filepath.Join(t.TempDir(), "w.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer hw.Close()
	w := &worker{c: config{process: "w"}, name: "w", clk: history.NewClock(0), hw: hw, histErr: &atomic.Int64{}}
	tr := &tracker{w: w, window: int64(time.Second)}
	w.tr = tr
	h := tr.begin("w", "l", nil, []string{"l"}, 100)
	h.mode = lockstep.ModeCombined
	if d := tr.deadline(h); d != 100+int64(time.Second) {
		t.Fatalf("before any renewal: %d", d)
	}
	ev := func(m lockstep.Mode, renewed bool) {
		e := lockstep.LeaseEvent{ID: "l", Owner: "w:combined.1", Mode: m, Renewed: renewed}
		if !renewed {
			e.Err = errors.New("timeout")
		}
		tr.ObserveLease(context.Background(), e)
	}
	ev(lockstep.ModeNew, true) // the queue half renewed; the legacy half has not
	if d := tr.deadline(h); d != 100+int64(time.Second) {
		t.Fatalf("one half renewed: deadline %d, want the Lock call's", d)
	}
	ev(lockstep.ModeLegacy, true)
	ev(lockstep.ModeNew, false) // a failed attempt moves no deadline
	ev(lockstep.ModeNew, true)  // sent after the failed attempt's report
	tr.mu.Lock()
	q, l := tr.ids["l"].okLB["new/w:combined.1"], tr.ids["l"].okLB["legacy/w:combined.1"]
	tr.mu.Unlock()
	if l != 100 || q <= 100 {
		t.Fatalf("send bounds: queue %d legacy %d", q, l)
	}
	if d := tr.deadline(h); d != 100+int64(time.Second) {
		t.Fatalf("deadline %d, want the legacy half's (sent no earlier than the Lock call)", d)
	}
	tr.ObserveLease(context.Background(), lockstep.LeaseEvent{ID: "other", Renewed: true})
	tr.end(h)
	tr.ObserveLease(context.Background(), lockstep.LeaseEvent{ID: "l", Renewed: true}) // after the hold: ignored
}
