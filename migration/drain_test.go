package migration

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
)

// intentStore records the phase writes that pass through it (the
// Controller's connection) and runs beforeIntent, once, just before the
// first intent is applied.
type intentStore struct {
	lockstep.Store
	beforeIntent func()

	mu      sync.Mutex
	intents []time.Time // when each intent write was sent
	writes  []string    // every phase value written, in order
}

func (s *intentStore) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	if table == DefaultPhaseTable && row == phaseRow && len(cells) == 1 && cells[0].Column == phaseColumn {
		v := string(cells[0].Value)
		s.mu.Lock()
		s.writes = append(s.writes, v)
		hook := s.beforeIntent
		if strings.HasPrefix(v, pendingPrefix) {
			s.intents = append(s.intents, time.Now())
			s.beforeIntent = nil
		} else {
			hook = nil
		}
		s.mu.Unlock()
		if hook != nil {
			hook()
		}
	}
	return s.Store.Put(ctx, table, row, cells...)
}

func (s *intentStore) recorded() (intents []time.Time, writes []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.intents...), append([]string(nil), s.writes...)
}

// refusalCount is what the looping processes of a drain saw.
type refusalCount struct {
	mu                     sync.Mutex
	refusals, beforeIntent int
	acquired               [lockstep.ModeNew + 1]int
	intentAt               time.Time // zero until the intent is seen
}

func (r *refusalCount) refused(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refusals++
	if r.intentAt.IsZero() || now.Before(r.intentAt) {
		r.beforeIntent++
	}
}

// loop takes and releases lock id through l until stop is set, holding it
// hold and pausing pause after each attempt, counting refusals into r.
func loop(t *testing.T, l *Locker, id string, hold, pause time.Duration, stop *atomic.Bool, r *refusalCount) {
	ctx := context.Background()
	for !stop.Load() {
		h, err := l.Lock(ctx, id)
		switch {
		case errors.Is(err, lockstep.ErrIncompatibleMode):
			r.refused(time.Now())
		case err != nil:
			t.Error(err)
			return
		default:
			r.mu.Lock()
			r.acquired[h.Mode()]++
			r.mu.Unlock()
			time.Sleep(hold)
			if err := h.Unlock(ctx); err != nil {
				t.Error(err)
				return
			}
		}
		time.Sleep(pause)
	}
}

// drainRun moves the phase from combined to new with a 10 s Drain while
// three processes still configured legacy keep taking locks; the operator
// flips their flags to combined one every 500 ms from 2 s after Set began.
// It returns
// how long Set took, the refusals the processes saw, and the intents
// written.
func drainRun(t *testing.T) (took time.Duration, r *refusalCount, intents int, err error) {
	ctx := context.Background()
	s := newStore()
	cs := &intentStore{Store: s}
	c := newController(t, cs, 10*time.Second)
	setPhase(t, c, lockstep.ModeCombined)
	r = &refusalCount{}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var flags []*switchFlag
	for i := range 3 {
		f := flagOf(lockstep.ModeLegacy)
		flags = append(flags, f)
		l := newProcess(t, s, fmt.Sprintf("svc-%d", i), f)
		wg.Go(func() { loop(t, l, fmt.Sprintf("job/%d", i), 20*time.Millisecond, 30*time.Millisecond, &stop, r) })
	}
	time.Sleep(500 * time.Millisecond) // every process is in the census
	wg.Go(func() {
		time.Sleep(2 * time.Second)
		for _, f := range flags {
			f.set(lockstep.ModeCombined)
			time.Sleep(500 * time.Millisecond)
		}
	})
	cs.beforeIntent = func() {
		r.mu.Lock()
		r.intentAt = time.Now()
		r.mu.Unlock()
	}
	before, _ := cs.recorded()
	start := time.Now()
	err = c.Set(ctx, lockstep.ModeNew)
	took = time.Since(start)
	time.Sleep(time.Second) // the processes go on a little in the new phase
	stop.Store(true)
	wg.Wait()
	after, _ := cs.recorded()
	return took, r, len(after) - len(before), err
}

// With a Drain the Controller drains first and writes the intent after:
// processes configured legacy keep taking legacy locks until their flag
// flips, and not one acquisition is refused. Writing the intent first and
// then waiting would refuse every process still configured in the outgoing
// mode every lock for the whole drain.
func TestController_DrainRefusesNoLockOfTheOutgoingModeBeforeTheIntent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		took, r, intents, err := drainRun(t)
		if err != nil {
			t.Fatalf("Set(new) with a 10s drain: %v", err)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		t.Logf("Set took %v, %d intent(s); refusals %d (%d before the intent); acquisitions legacy %d, combined %d, new %d",
			took, intents, r.refusals, r.beforeIntent, r.acquired[lockstep.ModeLegacy], r.acquired[lockstep.ModeCombined], r.acquired[lockstep.ModeNew])
		switch {
		case r.beforeIntent != 0 || r.refusals != 0:
			t.Fatalf("%d acquisitions refused during the drain (%d before the intent), want 0", r.refusals, r.beforeIntent)
		case took < 3*time.Second:
			t.Fatalf("Set took %v: it did not wait for the flags to flip", took)
		case r.acquired[lockstep.ModeLegacy] == 0 || r.acquired[lockstep.ModeCombined] == 0:
			t.Fatalf("acquisitions by mode %v: the processes did not keep working through the drain", r.acquired)
		case intents != 1:
			t.Fatalf("%d intents written, want 1", intents)
		}
	})
}

// forbiddenEntry sets up phase combined with a process "late" configured
// combined, and a Controller whose intent write lets late switch to legacy
// and take a legacy lock first: late begins using a mode phase new forbids
// after the drain's census read and before the intent. It returns the
// store wrapper, the Controller, late's flag and late's Locker; the lock late
// takes is sent on held.
func forbiddenEntry(t *testing.T, drain time.Duration, held chan<- lockstep.Lock, k *TestingKnobs) (*intentStore, *Controller, *switchFlag, *Locker) {
	t.Helper()
	s := newStore()
	cs := &intentStore{Store: s}
	c := newPlantedController(t, cs, drain, k)
	setPhase(t, c, lockstep.ModeCombined)
	flag := flagOf(lockstep.ModeCombined)
	late := newProcess(t, s, "late", flag)
	time.Sleep(testCensusTTL / 3)
	synctest.Wait()
	cs.intents, cs.writes = nil, nil // count this test's move only
	cs.beforeIntent = func() {
		flag.set(lockstep.ModeLegacy) // config drift: a stale replica comes back
		h, err := late.Lock(context.Background(), "report")
		if err != nil {
			t.Errorf("late's legacy lock before the intent: %v", err)
			close(held)
			return
		}
		held <- h
	}
	return cs, c, flag, late
}

// A process that starts using a forbidden mode between the drain and the
// intent is what the census read after the intent is for: the Controller
// sees it there, reverts at once, and (with no Drain left) refuses naming it.
// The legacy lock it took stays valid and the phase stays combined.
func TestController_AProcessEnteringAForbiddenModeDuringTheDrainMakesTheMoveRevert(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		held := make(chan lockstep.Lock, 1)
		cs, c, _, _ := forbiddenEntry(t, 0, held, nil)
		err := c.Set(ctx, lockstep.ModeNew)
		h := <-held
		var me *MoveError
		if !errors.As(err, &me) || len(me.Blockers) != 1 || me.Blockers[0].Process != "late" {
			t.Fatalf("Set(new) with late holding a legacy lock = %v, want a MoveError naming late", err)
		}
		t.Log(err)
		if p, _ := c.Get(ctx); p != (Phase{Mode: lockstep.ModeCombined}) {
			t.Fatalf("phase %v after the revert, want combined", p)
		}
		intents, writes := cs.recorded()
		if len(intents) != 1 || writes[len(writes)-1] != "combined" {
			t.Fatalf("phase writes %v, want one intent, then the revert", writes)
		}
		select {
		case <-h.Lost():
			t.Fatal("late's legacy lock was lost")
		default:
		}
		if err := h.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// With Drain left, the reverted move drains again: once the late process
// releases its lock and its flag is back at combined, a second intent
// commits.
func TestController_ARevertedIntentDrainsAgainAndCommitsOnceClear(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		held := make(chan lockstep.Lock, 1)
		cs, c, flag, _ := forbiddenEntry(t, 10*time.Second, held, nil)
		var wg sync.WaitGroup
		wg.Go(func() {
			h, ok := <-held
			if !ok {
				return
			}
			time.Sleep(2 * time.Second)
			flag.set(lockstep.ModeCombined)
			if err := h.Unlock(ctx); err != nil {
				t.Error(err)
			}
		})
		start := time.Now()
		if err := c.Set(ctx, lockstep.ModeNew); err != nil {
			t.Fatalf("Set(new): %v", err)
		}
		wg.Wait()
		intents, writes := cs.recorded()
		t.Logf("committed after %v; phase writes %v", time.Since(start), writes)
		if p, _ := c.Get(ctx); p != (Phase{Mode: lockstep.ModeNew}) || len(intents) != 2 {
			t.Fatalf("phase %v after %d intents (writes %v), want new after 2", p, len(intents), writes)
		}
	})
}
