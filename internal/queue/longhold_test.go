package queue

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// longHold is one run of the long-holder scenario: one Locker holds "hot"
// in IS for the whole run while three others take and release it in IS,
// one acquisition a millisecond. It returns the most tombstones one read
// stepped over in the last 300 acquisitions, after warm acquisitions, and
// whether the holder's queue cell was live at the end.
func longHold(t *testing.T, warm int, k *TestingKnobs) (last int64, queueCellLive bool) {
	t.Helper()
	ctx := context.Background()
	s := model.New(&clock.Local{})
	const skew, period = 10 * time.Millisecond, time.Millisecond
	opts := func(k *TestingKnobs) *Options {
		return &Options{TTL: ttl, Renew: time.Second, Poll: 10 * time.Millisecond, MaxClockSkew: skew, TestingKnobs: k}
	}
	holder, err := New(s, opts(k))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Close(ctx) })
	h, err := lockIn(ctx, holder, "hot", lockstep.IntentShared)
	if err != nil {
		t.Fatal(err)
	}
	var others []*testLocker
	for range 3 {
		l, err := New(s, opts(nil))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close(ctx) })
		others = append(others, l)
	}
	churn(t, s, others, lockstep.IntentShared, warm, period)
	last = churn(t, s, others, lockstep.IntentShared, 300, period)
	for _, c := range cells(t, s, "hot") {
		if col, _, _ := strings.Cut(c, "="); isQueueColumn(col) {
			queueCellLive = true
		}
	}
	select {
	case <-h.Lost():
		t.Fatal("the long holder lost its lock")
	default:
	}
	if err := h.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	return last, queueCellLive
}

// A holder that keeps an id for a long time, in an access others share (an
// intention lock on a hot ancestor, a long reader), gives its queue cell up
// with its first renewal, a Poll after its claim (docs/algorithms.md, section 4.13). Readers' floors
// then move on past its name, and a read steps over the tombstones of the
// last few milliseconds' acquisitions, as on a hot id nobody holds
// (TestFloor_HotIDReadCostDoesNotGrowWithHistory), not over every tombstone
// left since the holder took the id: the same in the first 300 acquisitions
// as after 3,300. (With the holder's queue cell live, the floors stop at its
// name: the _bugs_ control shows reads then step over every acquisition's
// tombstone.)
func TestFloor_LongHolderDoesNotPinTheFloor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The holder's first renewal, which deletes its queue cell, comes
		// a Poll (10ms) after its claim: in an access others share.
		early, live := longHold(t, 0, nil)
		if live {
			t.Fatal("the holder's queue cell is live after its first renewal")
		}
		late, _ := longHold(t, 3000, nil)
		t.Logf("max tombstones per read: in the first 300 acquisitions %d, in 300 after 3,000 more %d", early, late)
		// As TestFloor_HotIDReadCostDoesNotGrowWithHistory's bound: the lag
		// (2×skew) and the acquisitions since a Locker's previous read, one
		// owner tombstone per Locker.
		const skew, period = 10 * time.Millisecond, time.Millisecond
		if bound := int64((2*skew+3*period)/period) + 1 + 4; early > bound || late > bound {
			t.Fatalf("reads stepped over %d and %d tombstones, want at most %d", early, late, bound)
		}
	})
}
