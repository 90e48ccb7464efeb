package register

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func start(t *testing.T) (*Server, *Client, *Client) {
	t.Helper()
	s, err := Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	a, err := NewClient(s.URL(), "a", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewClient(s.URL(), "b", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return s, a, b
}

func TestRegister_FenceRejectsOlderTokenAfterNewerRead(t *testing.T) {
	s, a, b := start(t)
	ctx := context.Background()
	v, _, err := a.ReadFenced(ctx, "lock-0", 5)
	if err != nil || v != 0 {
		t.Fatalf("read: %d %v", v, err)
	}
	// b, the successor, reads with a newer token before a writes: a's
	// write must be rejected even though no write carried token 6 yet.
	if _, _, err := b.ReadFenced(ctx, "lock-0", 6); err != nil {
		t.Fatal(err)
	}
	ok, err := a.WriteFenced(ctx, "lock-0", 5, 0, 1)
	if err != nil || ok {
		t.Fatalf("stale write accepted=%v err=%v, want rejected", ok, err)
	}
	ok, err = b.WriteFenced(ctx, "lock-0", 6, 0, 1)
	if err != nil || !ok {
		t.Fatalf("current write accepted=%v err=%v, want accepted", ok, err)
	}
	if v, fence, _ := a.ReadFenced(ctx, "lock-0", 0); v != 1 || fence != 6 {
		t.Fatalf("read after writes: value %d fence %d, want 1 6", v, fence)
	}
	ops := s.Ops()
	if len(ops) != 5 {
		t.Fatalf("%d ops logged, want 5: %+v", len(ops), ops)
	}
	if r := ops[2]; r.Kind != WriteFenced || r.Accepted || r.Process != "a" || r.Fence != 6 {
		t.Fatalf("rejection logged as %+v", r)
	}
	for i, op := range ops {
		if op.Seq != int64(i+1) || (i > 0 && op.AtNS < ops[i-1].AtNS) {
			t.Fatalf("op %d: seq %d at %d after %d", i, op.Seq, op.AtNS, ops[max(i-1, 0)].AtNS)
		}
	}
}

func TestRegister_CounterLogsLostUpdate(t *testing.T) {
	s, a, b := start(t)
	ctx := context.Background()
	va, _ := a.ReadCounter(ctx, "x")
	vb, _ := b.ReadCounter(ctx, "x")
	if err := a.WriteCounter(ctx, "x", va, va+1); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteCounter(ctx, "x", vb, vb+1); err != nil {
		t.Fatal(err)
	}
	ops := s.Ops()
	last := ops[len(ops)-1]
	if last.Kind != WriteCounter || last.Prev != 0 || last.Before != 1 {
		t.Fatalf("lost update not visible in the log: %+v", last)
	}
}

func TestRegister_ConcurrentIncrementsUnderOneLockAreSerial(t *testing.T) {
	s, a, _ := start(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex // the "lock": increments are serial, so none is lost
	for range 8 {
		wg.Go(func() {
			for range 10 {
				mu.Lock()
				v, _, _ := a.ReadFenced(ctx, "l", 1)
				a.WriteFenced(ctx, "l", 1, v, v+1)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if v, _, _ := a.ReadFenced(ctx, "l", 0); v != 80 {
		t.Fatalf("value %d, want 80", v)
	}
	path := filepath.Join(t.TempDir(), "ops.jsonl")
	if err := Save(path, s.Ops()); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil || len(back) != len(s.Ops()) || back[5] != s.Ops()[5] {
		t.Fatalf("round trip: %d ops, err %v", len(back), err)
	}
}

func TestRegister_RefusesNonLoopbackAndBadInput(t *testing.T) {
	if _, err := Start("0.0.0.0:0"); err == nil {
		t.Fatal("non-loopback address accepted")
	}
	if _, err := NewClient("localhost:80", "p", 0); err == nil {
		t.Fatal("URL without scheme accepted")
	}
	s2, _, _ := start(t)
	c, _ := NewClient(s2.URL(), "p", 0)
	if _, _, err := c.do(context.Background(), "GET", "/fenced/l?token=x", nil); err == nil {
		t.Fatal("bad token accepted")
	}
	if _, _, err := c.do(context.Background(), "POST", "/fenced/l", &WriteRequest{Process: "p", Token: -1}); err == nil {
		t.Fatal("negative token accepted")
	}
	if n := len(s2.Ops()); n != 0 {
		t.Fatalf("bad request logged %d ops", n)
	}
}
