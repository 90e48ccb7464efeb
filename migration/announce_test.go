package migration

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
)

// announceCell returns the announcement cell's value, "" when there is none.
func announceCell(t *testing.T, s lockstep.Store) string {
	t.Helper()
	cs, err := s.Read(context.Background(), DefaultPhaseTable, phaseRow, lockstep.Slice{From: announceColumn, To: announceColumn + "\x00"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 {
		return ""
	}
	return string(cs[0].Value)
}

// A fleet following the phase switches to combined as soon as the drain
// announces the move, before any intent: none of its acquisitions is refused
// on the way back from new to combined (with the intent first, each process
// was refused until its flag's cache expired), and the announcement is gone
// once the move committed.
func TestPhaseFlag_FleetFollowsTheAnnouncementWithoutARefusal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		seen := &announceSeen{Store: s}
		c := newController(t, seen, 10*time.Second)
		setPhase(t, c, lockstep.ModeCombined, lockstep.ModeNew)
		r := &refusalCount{}
		var stop atomic.Bool
		var wg sync.WaitGroup
		for _, name := range []string{"f0", "f1", "f2"} {
			pf, err := NewPhaseFlag(s, &PhaseFlagOptions{Cache: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			l := newProcess(t, s, name, pf)
			wg.Go(func() { loop(t, l, "job/"+name, 200*time.Millisecond, 50*time.Millisecond, &stop, r) })
		}
		time.Sleep(2 * time.Second)
		if err := c.Set(ctx, lockstep.ModeCombined); err != nil {
			t.Fatalf("Set(combined): %v", err)
		}
		time.Sleep(2 * time.Second)
		stop.Store(true)
		wg.Wait()
		r.mu.Lock()
		defer r.mu.Unlock()
		during := seen.values()
		t.Logf("announcements written %q; refusals %d; acquisitions legacy %d, combined %d, new %d",
			during, r.refusals, r.acquired[lockstep.ModeLegacy], r.acquired[lockstep.ModeCombined], r.acquired[lockstep.ModeNew])
		switch {
		case len(during) != 1 || during[0] != "pending:new->combined":
			t.Fatalf("announcements written %q, want pending:new->combined once", during)
		case r.refusals != 0:
			t.Fatalf("%d acquisitions of the PhaseFlag fleet refused, want 0", r.refusals)
		case r.acquired[lockstep.ModeNew] == 0 || r.acquired[lockstep.ModeCombined] == 0:
			t.Fatalf("acquisitions by mode %v, want new before the move and combined after", r.acquired)
		case announceCell(t, s) != "":
			t.Fatalf("announcement %q left behind after the move", announceCell(t, s))
		}
	})
}

// A drain that does not clear refuses naming the blockers and leaves the
// phase cell exactly as it was — value and timestamp — and withdraws its
// announcement; with Drain 0 it announces nothing at all.
func TestController_ADrainThatDoesNotClearWritesNoPhase(t *testing.T) {
	for _, drain := range []time.Duration{0, 3 * time.Second} {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			s := newStore()
			c := newController(t, s, drain)
			setPhase(t, c, lockstep.ModeCombined)
			newProcess(t, s, "stuck", Static(lockstep.ModeLegacy))
			time.Sleep(testCensusTTL / 3)
			synctest.Wait()
			v0, ts0 := phaseStamp(t, s)
			var during string
			var wg sync.WaitGroup
			wg.Go(func() {
				time.Sleep(drain / 2)
				during = announceCell(t, s)
			})
			err := c.Set(ctx, lockstep.ModeNew)
			wg.Wait()
			var me *MoveError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), "stuck") {
				t.Fatalf("drain %v: Set(new) = %v, want a MoveError naming stuck", drain, err)
			}
			if v, ts := phaseStamp(t, s); v != v0 || ts != ts0 {
				t.Fatalf("drain %v: the refused move wrote the phase cell: %q@%d -> %q@%d", drain, v0, ts0, v, ts)
			}
			if want := map[bool]string{false: "", true: "pending:combined->new"}[drain > 0]; during != want {
				t.Fatalf("drain %v: announcement during the drain %q, want %q", drain, during, want)
			}
			if a := announceCell(t, s); a != "" {
				t.Fatalf("drain %v: announcement %q left behind", drain, a)
			}
		})
	}
}

// PhaseFlag answers combined for an announcement from the committed phase,
// and ignores one that no longer matches it (a Controller that died after
// the commit, before withdrawing it).
func TestPhaseFlag_AnswersCombinedOnlyForAnAnnouncementFromTheCommittedPhase(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		c := newController(t, s, 0)
		setPhase(t, c, lockstep.ModeCombined, lockstep.ModeNew)
		pf, err := NewPhaseFlag(s, &PhaseFlagOptions{Cache: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		announce := func(p Phase) {
			t.Helper()
			if err := s.Put(ctx, DefaultPhaseTable, phaseRow, lockstep.Cell{Column: announceColumn, Value: []byte(p.String()),
				Timestamp: time.Now().UnixMicro(), TTL: 5 * time.Second}); err != nil {
				t.Fatal(err)
			}
		}
		mode := func() lockstep.Mode {
			t.Helper()
			time.Sleep(2 * time.Second) // past the cache
			m, err := pf.Mode(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		if m := mode(); m != lockstep.ModeNew {
			t.Fatalf("phase new, no announcement: %v", m)
		}
		announce(Phase{Mode: lockstep.ModeNew, Target: lockstep.ModeCombined})
		if m := mode(); m != lockstep.ModeCombined {
			t.Fatalf("move new -> combined announced: %v, want combined", m)
		}
		announce(Phase{Mode: lockstep.ModeCombined, Target: lockstep.ModeNew}) // stale: the phase is new already
		if m := mode(); m != lockstep.ModeNew {
			t.Fatalf("stale announcement: %v, want new", m)
		}
		announce(Phase{Mode: lockstep.ModeNew, Target: lockstep.ModeCombined})
		time.Sleep(6 * time.Second) // the announcement expires
		if m := mode(); m != lockstep.ModeNew {
			t.Fatalf("expired announcement: %v, want new", m)
		}
	})
}

// announceSeen records the announcements written through it.
type announceSeen struct {
	lockstep.Store
	mu   sync.Mutex
	seen []string
}

func (s *announceSeen) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	if table == DefaultPhaseTable && len(cells) == 1 && cells[0].Column == announceColumn {
		s.mu.Lock()
		s.seen = append(s.seen, string(cells[0].Value))
		s.mu.Unlock()
	}
	return s.Store.Put(ctx, table, row, cells...)
}

func (s *announceSeen) values() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// announceFails fails every write of the announcement cell.
type announceFails struct{ lockstep.Store }

func (s announceFails) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	if table == DefaultPhaseTable && len(cells) == 1 && cells[0].Column == announceColumn {
		return errCut
	}
	return s.Store.Put(ctx, table, row, cells...)
}

// A failed announcement ends the move with the store's error, before any
// intent: the phase cell is as it was.
func TestController_AFailedAnnouncementEndsTheMoveWritingNoPhase(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		setPhase(t, newController(t, s, 0), lockstep.ModeCombined)
		newProcess(t, s, "stuck", Static(lockstep.ModeLegacy))
		time.Sleep(testCensusTTL / 3)
		synctest.Wait()
		v0, ts0 := phaseStamp(t, s)
		err := newController(t, announceFails{s}, 3*time.Second).Set(ctx, lockstep.ModeNew)
		if !errors.Is(err, errCut) || !strings.Contains(err.Error(), "announcing") {
			t.Fatalf("Set(new) with the announcement failing = %v, want the store's error", err)
		}
		if v, ts := phaseStamp(t, s); v != v0 || ts != ts0 {
			t.Fatalf("the failed move wrote the phase cell: %q@%d -> %q@%d", v0, ts0, v, ts)
		}
	})
}
