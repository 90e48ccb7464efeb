//go:build integration

package cassandra_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/queuelock"
)

// counted counts the requests sent through it.
type counted struct {
	lockstep.Store
	n atomic.Int64
}

func (c *counted) Put(ctx context.Context, t, r string, cs ...lockstep.Cell) error {
	c.n.Add(1)
	return c.Store.Put(ctx, t, r, cs...)
}
func (c *counted) Delete(ctx context.Context, t, r string, ts int64, cols ...string) error {
	c.n.Add(1)
	return c.Store.Delete(ctx, t, r, ts, cols...)
}
func (c *counted) Read(ctx context.Context, t, r string, s lockstep.Slice) ([]lockstep.Cell, error) {
	c.n.Add(1)
	return c.Store.Read(ctx, t, r, s)
}

// TestHandover_RequestsAndTime measures a handover of one exclusive lock
// on the real node: Share, Adopt, the giver's leave and the last holder's
// release, each's requests and wall time, and how long a waiting third
// process then takes to acquire (figures in the log; the third's own
// polls are not counted). Renewals that fall inside a step count too.
func TestHandover_RequestsAndTime(t *testing.T) {
	ctx := context.Background()
	base := locktest.Prefixed(newStore(t), fmt.Sprintf("handover/%x/", time.Now().UnixNano()))
	gs, rs := &counted{Store: base}, &counted{Store: base} // the giver's and the receiver's requests
	mk := func(s lockstep.Store) *queuelock.Locker {
		l, err := queuelock.New(s, &queuelock.Options{Poll: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close(ctx) })
		return l
	}
	giver, receiver, third := mk(gs), mk(rs), mk(base)
	for round := range 3 {
		id := fmt.Sprintf("job/%d", round)
		l, err := giver.Lock(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan time.Time, 1)
		go func() {
			l3, err := third.Lock(ctx, id)
			if err != nil {
				t.Error(err)
			}
			got <- time.Now()
			_ = l3.Unlock(ctx)
		}()
		time.Sleep(100 * time.Millisecond) // the third is in line
		var l2 lockstep.Lock
		var tok string
		step := func(name string, f func() error) {
			g, r, start := gs.n.Load(), rs.n.Load(), time.Now()
			if err := f(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			t.Logf("round %d: %-18s giver %d, receiver %d requests, %v", round, name, gs.n.Load()-g, rs.n.Load()-r, time.Since(start).Round(100*time.Microsecond))
		}
		step("Share", func() (err error) { tok, err = giver.Share(l); return })
		step("Adopt", func() (err error) { l2, err = receiver.Adopt(ctx, tok); return })
		step("giver's Unlock", func() error { return l.Unlock(ctx) })
		select {
		case <-got:
			t.Fatal("the third acquired while the receiver held the lock")
		default:
		}
		var released time.Time
		step("receiver's Unlock", func() error { released = time.Now(); return l2.Unlock(ctx) })
		t.Logf("round %d: the third acquired %v after the receiver's Unlock began", round, (<-got).Sub(released).Round(100*time.Microsecond))
	}
}
