package queue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model"
	"pgregory.net/rapid"
)

// foreignCells are cells no Locker writes, one of each kind of wrong; the
// first is the one whose skipping threatens mutual exclusion: an owner cell
// whose value names no owner.
var foreignCells = []lockstep.Cell{
	{Column: "~o/other/0000000000000000", Value: []byte{}},
	{Column: "c100", Value: []byte("someone else's data")},
	{Column: "00000000000000000001/q/", Value: []byte("x")},
	{Column: "~o/no-incarnation", Value: []byte("p.1")},
	{Column: layout.FloorColumn, Value: []byte{1, 2, 3}},
}

// live lists the live cells of id's whole partition, with value and
// timestamp: what "changes nothing" compares.
func live(ctx context.Context, s lockstep.Store, id string) ([]string, error) {
	cs, err := s.Read(ctx, DefaultTable, id, lockstep.Slice{})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = fmt.Sprintf("%q=%x@%d", c.Column, c.Value, c.Timestamp)
	}
	return out, nil
}

// refusesForeign plants foreign in id's partition of s (while held by
// holder, if not nil), then runs Lock or TryLock on l and reports what is
// wrong: nil when the call failed with a *lockstep.ForeignCellError naming
// the table, row and column, and the partition's live cells are what they
// were before the call.
func refusesForeign(ctx context.Context, s lockstep.Store, l *testLocker, try bool, foreign lockstep.Cell) error {
	const id = "invoice/42"
	foreign.Timestamp, foreign.TTL = 1, time.Hour
	if err := s.Put(ctx, DefaultTable, id, foreign); err != nil {
		return err
	}
	before, err := live(ctx, s, id)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var h lockstep.Lock
	if try {
		h, err = l.TryLock(ctx, id)
	} else {
		h, err = l.Lock(ctx, id)
	}
	if h != nil {
		_ = h.Unlock(context.WithoutCancel(ctx))
		return fmt.Errorf("acquired beside the foreign cell %q=%x", foreign.Column, foreign.Value)
	}
	var fe *lockstep.ForeignCellError
	if !errors.As(err, &fe) || !errors.Is(err, lockstep.ErrForeignCell) {
		return fmt.Errorf("error %v, want a *lockstep.ForeignCellError", err)
	}
	if fe.Table != DefaultTable || fe.Row != id || fe.Column != foreign.Column || fe.Reason == "" {
		return fmt.Errorf("error names %+v, want table %s, row %q, column %q and a reason", fe, DefaultTable, id, foreign.Column)
	}
	if msg := err.Error(); !strings.Contains(msg, "another writer shares the table") {
		return fmt.Errorf("error %q does not say what to do", msg)
	}
	after, err := live(ctx, s, id)
	if err != nil {
		return err
	}
	if !slices.Equal(before, after) {
		return fmt.Errorf("the partition changed:\nbefore %q\nafter  %q", before, after)
	}
	return nil
}

// foreignScenarios runs refusesForeign for every foreign cell, with Lock and
// TryLock, on a free lock and on one held by another Locker, and returns
// every failure.
func foreignScenarios(t *testing.T, k *TestingKnobs) []error {
	var errs []error
	for _, foreign := range foreignCells {
		for _, held := range []bool{false, true} {
			for _, try := range []bool{false, true} {
				synctest.Test(t, func(t *testing.T) {
					ctx := context.Background()
					s := model.New(&clock.Local{})
					if held {
						h, err := newPlanted(t, s, nil, k).Lock(ctx, "invoice/42")
						if err != nil {
							t.Fatal(err)
						}
						defer h.Unlock(ctx)
					}
					if err := refusesForeign(ctx, s, newPlanted(t, s, nil, k), try, foreign); err != nil {
						errs = append(errs, fmt.Errorf("%q=%x, held %v, try %v: %w", foreign.Column, foreign.Value, held, try, err))
					}
				})
			}
		}
	}
	return errs
}

func TestQueueLock_ForeignCellIsAnErrorTheCallerSees(t *testing.T) {
	for _, err := range foreignScenarios(t, nil) {
		t.Error(err)
	}
}

// A waiter that meets a foreign cell while in line stops waiting with the
// error, deleting its queue cell; the holder's cells are untouched.
func TestQueueLock_ForeignCellEndsAWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		h, err := newLocker(t, s, nil).Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		defer h.Unlock(ctx)
		time.Sleep(1500 * time.Millisecond) // past the holder's first renewal, which deletes its queue cell
		held, _ := live(ctx, s, "id")
		done := make(chan error, 1)
		go func() {
			_, err := newLocker(t, s, nil).Lock(ctx, "id")
			done <- err
		}()
		time.Sleep(ttl) // waiting: renewing its queue cell, reading every Poll
		synctest.Wait()
		foreign := lockstep.Cell{Column: "zz", Value: []byte("x"), Timestamp: 1, TTL: time.Hour}
		if err := s.Put(ctx, DefaultTable, "id", foreign); err != nil {
			t.Fatal(err)
		}
		if err := <-done; !errors.Is(err, lockstep.ErrForeignCell) {
			t.Fatalf("waiting Lock = %v, want ErrForeignCell", err)
		}
		// The holder renewed meanwhile: compare columns, not timestamps.
		after, _ := live(ctx, s, "id")
		cols := func(cs []string) []string {
			out := []string{}
			for _, c := range cs {
				col, _, _ := strings.Cut(c, "=")
				out = append(out, col)
			}
			return out
		}
		want := append(cols(held), `"zz"`)
		slices.Sort(want)
		if !slices.Equal(cols(after), want) {
			t.Fatalf("partition after the waiter's error: %q, want %q", cols(after), want)
		}
	})
}

// Any cell a read of the partition can return that Parse refuses ends Lock
// and TryLock with the error, and changes nothing.
func TestQueueLock_AnyForeignCellIsRefused(t *testing.T) {
	column := rapid.OneOf(
		rapid.StringMatching(`[0-9~a-z][ -~]{0,30}`),
		rapid.StringMatching(`~o/[ -~]{0,20}`),
		rapid.StringMatching(`[0-9]{20}/q/[ -~]{0,5}`),
		rapid.Just(layout.FloorColumn),
	)
	rapid.Check(t, func(rt *rapid.T) {
		col := column.Draw(rt, "column")
		value := rapid.SliceOfN(rapid.Byte(), 0, 10).Draw(rt, "value")
		if _, err := layout.Parse(col, value); err == nil {
			rt.Skip("a lockstep cell")
		}
		if col < layout.Stamp(0) {
			rt.Skip("sorts before every queue name: no read returns it")
		}
		try := rapid.Bool().Draw(rt, "try")
		var err error
		synctest.Test(t, func(t *testing.T) {
			s := model.New(&clock.Local{})
			err = refusesForeign(context.Background(), s, newLocker(t, s, nil), try, lockstep.Cell{Column: col, Value: value})
		})
		if err != nil {
			rt.Fatal(err)
		}
	})
}
