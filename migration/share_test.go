package migration

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration/census"
)

// newPhaseNew returns a store whose phase is new.
func newPhaseNew(t *testing.T) (lockstep.Store, *Controller) {
	s := newStore()
	c := newController(t, s, 0)
	setPhase(t, c, lockstep.ModeCombined, lockstep.ModeNew)
	return s, c
}

// A lock taken in mode new is handed from one migration Locker to another:
// the receiver holds it under the giver's identity, counts it in its census
// entry, and a third process stays out until the last holder leaves.
func TestShare_HandsANewLockBetweenMigrationLockers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s, _ := newPhaseNew(t)
		giver := newProcess(t, s, "giver", flagOf(lockstep.ModeNew))
		recv := newProcess(t, s, "receiver", flagOf(lockstep.ModeNew))
		third := newProcess(t, s, "third", flagOf(lockstep.ModeNew))
		l, tok := lockShared(t, ctx, giver, "id")
		l2, err := recv.Adopt(ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		if l2.ID() != l.ID() || l2.Owner() != l.Owner() || l2.Mode() != lockstep.ModeNew {
			t.Fatalf("adopted %q %s %v, shared %q %s", l2.ID(), l2.Owner(), l2.Mode(), l.ID(), l.Owner())
		}
		if n := recv.Entry().Held[lockstep.ModeNew]; n != 1 {
			t.Fatalf("receiver's census entry holds %d locks in new, want 1", n)
		}
		if err := l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := third.TryLock(ctx, "id"); !errors.Is(err, lockstep.ErrLocked) {
			t.Fatalf("third TryLock beside the receiver = %v, want ErrLocked", err)
		}
		select {
		case <-l2.Lost():
			t.Fatal("the adopted lock is lost after the giver left")
		default:
		}
		if err := l2.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if n := recv.Entry().Held[lockstep.ModeNew]; n != 0 {
			t.Fatalf("receiver's census entry holds %d locks in new after Unlock, want 0", n)
		}
		l3, err := third.TryLock(ctx, "id")
		if err != nil {
			t.Fatalf("third TryLock after the last holder left: %v", err)
		}
		_ = l3.Unlock(ctx)
	})
}

// A group is handed over whole, and counted per member in the census.
func TestShare_HandsAGroupOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s, _ := newPhaseNew(t)
		giver := newProcess(t, s, "giver", flagOf(lockstep.ModeNew))
		recv := newProcess(t, s, "receiver", flagOf(lockstep.ModeNew))
		g, err := giver.LockGroup(ctx, lockstep.Request{ID: "a", Access: lockstep.Shared}, lockstep.Request{ID: "b"})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := giver.Share(g)
		if err != nil {
			t.Fatal(err)
		}
		g2, err := recv.Adopt(ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		want := g.(lockstep.Grouped).Members()
		got, ok := g2.(lockstep.Grouped)
		if !ok || len(got.Members()) != len(want) || got.Members()[0] != want[0] || got.Members()[1] != want[1] {
			t.Fatalf("adopted group %v, shared %v", g2, want)
		}
		if n := recv.Entry().Held[lockstep.ModeNew]; n != 2 {
			t.Fatalf("receiver's census entry holds %d locks in new, want 2", n)
		}
		if err := g.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := g2.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if cs := lockCells(t, s, "b"); len(cs) != 0 {
			t.Fatalf("cells left after the last holder left: %v", cs)
		}
	})
}

// A lock held in mode combined or legacy cannot be shared: the error says
// what to do, and the lock is still held.
func TestShare_RefusesCombinedAndLegacyHolds(t *testing.T) {
	for _, m := range []lockstep.Mode{lockstep.ModeCombined, lockstep.ModeLegacy} {
		t.Run(m.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				s := newStore()
				setPhase(t, newController(t, s, 0), lockstep.ModeCombined)
				giver := newProcess(t, s, "giver", flagOf(m))
				l, err := giver.Lock(ctx, "id")
				if err != nil {
					t.Fatal(err)
				}
				_, err = giver.Share(l)
				if !errors.Is(err, lockstep.ErrIncompatibleMode) || !strings.Contains(err.Error(), "only locks taken in mode new") {
					t.Fatalf("Share of a %v lock = %v, want ErrIncompatibleMode saying what to do", m, err)
				}
				t.Log(err)
				if err := l.Unlock(ctx); err != nil {
					t.Fatalf("the refused lock's Unlock: %v", err)
				}
			})
		})
	}
}

// adoptRefused runs a refused Adopt and checks that it changed nothing:
// no cell of the lock's row and no census count of the receiver.
func adoptRefused(t *testing.T, s lockstep.Store, recv *Locker, ctx context.Context, tok string) error {
	t.Helper()
	before := len(lockCells(t, s, "id"))
	_, err := recv.Adopt(ctx, tok)
	if err == nil {
		t.Fatal("Adopt succeeded, want a refusal")
	}
	if after := len(lockCells(t, s, "id")); after != before {
		t.Fatalf("the refused Adopt changed the lock's cells: %d, then %d", before, after)
	}
	e := recv.Entry()
	if e.Held[lockstep.ModeNew] != 0 || e.Acquiring[lockstep.ModeNew] != 0 {
		t.Fatalf("the refused Adopt is counted in the census: %v", e)
	}
	t.Log(err)
	return err
}

// A receiver whose flag does not say new, a malformed token and a token of
// another table are refused before any lock-table request.
func TestAdopt_RefusesAFlagNotNewAndBadTokens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s, _ := newPhaseNew(t)
		giver := newProcess(t, s, "giver", flagOf(lockstep.ModeNew))
		flag := flagOf(lockstep.ModeCombined)
		recv := newProcess(t, s, "receiver", flag)
		l, err := giver.Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Unlock(ctx)
		tok, err := giver.Share(l)
		if err != nil {
			t.Fatal(err)
		}
		if err := adoptRefused(t, s, recv, ctx, tok); !errors.Is(err, lockstep.ErrIncompatibleMode) || !strings.Contains(err.Error(), "flag says combined") {
			t.Fatalf("Adopt with flag combined = %v, want ErrIncompatibleMode", err)
		}
		flag.set(lockstep.ModeNew)
		if err := adoptRefused(t, s, recv, ctx, tok[:len(tok)-2]); !errors.Is(err, lockstep.ErrShareToken) {
			t.Fatalf("Adopt of a damaged token = %v, want ErrShareToken", err)
		}
		o := testOptions(3)
		o.Queue.Table = "other_lock"
		other, err := New(s, flag, withIdentity(o, &clock.Local{}, "other"))
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close(ctx)
		if err := adoptRefused(t, s, other, ctx, tok); !errors.Is(err, lockstep.ErrShareToken) {
			t.Fatalf("Adopt of another table's token = %v, want ErrShareToken", err)
		}
	})
}

// A phase that forbids new refuses the adoption with a *ModeError before
// the lock tables are touched (the lock has been released meanwhile, and a
// Lock-table read would say so instead).
func TestAdopt_RefusedByAPhaseThatForbidsNew(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s, c := newPhaseNew(t)
		gflag := flagOf(lockstep.ModeNew)
		giver := newProcess(t, s, "giver", gflag)
		recv := newProcess(t, s, "receiver", flagOf(lockstep.ModeNew))
		l, tok := lockShared(t, ctx, giver, "id")
		if err := l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		// The receiver's census shows it configured new: a Controller
		// would not move. Write the phase as a Controller that did.
		if err := writePhase(ctx, s, DefaultPhaseTable, Phase{Mode: lockstep.ModeCombined}, time.Now().Add(time.Hour).UnixMicro()); err != nil {
			t.Fatal(err)
		}
		_ = c
		err := adoptRefused(t, s, recv, ctx, tok)
		var me *ModeError
		if !errors.As(err, &me) || me.Phase.Mode != lockstep.ModeCombined || !errors.Is(err, lockstep.ErrIncompatibleMode) {
			t.Fatalf("Adopt in phase combined = %v, want a *ModeError", err)
		}
	})
}

// An adopted lock is bound to the receiver's census epoch: when the
// receiver's heartbeat lapses its Lost() closes, though the giver's lease
// is intact; and a receiver whose census is stale adopts nothing.
func TestAdopt_LostClosesWhenTheReceiversCensusLapses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s, _ := newPhaseNew(t)
		giver := newProcess(t, s, "giver", flagOf(lockstep.ModeNew))
		cut := &cutStore{Store: s, table: census.DefaultTable}
		recv := newProcess(t, cut, "receiver", flagOf(lockstep.ModeNew))
		l, err := giver.Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Unlock(ctx)
		tok, err := giver.Share(l)
		if err != nil {
			t.Fatal(err)
		}
		l2, err := recv.Adopt(ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		cut.cut.Store(true)
		time.Sleep(testCensusTTL)
		synctest.Wait()
		select {
		case <-l2.Lost():
		default:
			t.Fatal("the adopted lock's Lost is open after the receiver's census heartbeat lapsed")
		}
		select {
		case <-l.Lost():
			t.Fatal("the giver's lock is lost: only the receiver's census lapsed")
		default:
		}
		if err := l2.Unlock(ctx); !errors.Is(err, lockstep.ErrLost) {
			t.Fatalf("Unlock of the lost adopted lock = %v, want ErrLost", err)
		}
		if err := adoptRefused(t, s, recv, ctx, tok); !errors.Is(err, ErrStaleCensus) {
			t.Fatalf("Adopt with a stale census = %v, want ErrStaleCensus", err)
		}
	})
}

// A unit of work's Adopt makes the adopted lock the unit's: the unit's
// next Lock of the id is counted with no store request, and its UnlockAll
// releases it.
func TestAdopt_JoinsTheUnitOfWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s, _ := newPhaseNew(t)
		giver := newProcess(t, s, "giver", flagOf(lockstep.ModeNew))
		recv := newProcess(t, s, "receiver", flagOf(lockstep.ModeNew))
		third := newProcess(t, s, "third", flagOf(lockstep.ModeNew))
		l, tok := lockShared(t, ctx, giver, "id")
		job := recv.Unit("job")
		l2, err := job.(interface {
			Adopt(context.Context, string) (lockstep.Lock, error)
		}).Adopt(ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		again, err := job.TryLock(ctx, "id")
		if err != nil {
			t.Fatalf("the holder's TryLock of the adopted id: %v", err)
		}
		if again.Owner() != l2.Owner() {
			t.Fatalf("reentrant TryLock owner %s, adopted %s", again.Owner(), l2.Owner())
		}
		if err := job.UnlockAll(ctx); err != nil {
			t.Fatal(err)
		}
		if err := l2.Unlock(ctx); err != nil {
			t.Fatalf("Unlock after UnlockAll: %v", err)
		}
		l3, err := third.TryLock(ctx, "id")
		if err != nil {
			t.Fatalf("third TryLock after UnlockAll: %v", err)
		}
		_ = l3.Unlock(ctx)
	})
}

// lockShared locks id on p and shares it, failing the test on an error.
func lockShared(t *testing.T, ctx context.Context, p *Locker, id string) (lockstep.Lock, string) {
	t.Helper()
	l, err := p.Lock(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := p.Share(l)
	if err != nil {
		t.Fatal(err)
	}
	return l, tok
}
