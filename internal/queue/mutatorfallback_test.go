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

// plainStore hides its store's PutDelete: a Store that is no
// lockstep.Mutator.
type plainStore struct{ lockstep.Store }

// refusingMutator is a Store with PutDelete over one without: model.Faulty
// over a plainStore, which refuses every PutDelete with
// errors.ErrUnsupported, as lockstep.Mutator asks of such a wrapper.
func refusingMutator(t *testing.T, s lockstep.Store) *model.Faulty {
	t.Helper()
	f, err := model.NewFaulty(plainStore{s}, model.FaultConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// A store that has PutDelete but refuses it as unsupported must not cost a
// holder its lease: the renewal falls back to a Put (and gives the queue
// cell up with a Delete). Found on a real node: the integration scenarios
// wrap the store in model.Faulty over a prefixing wrapper that was no
// Mutator, and every hold longer than the lease window was lost.
func TestRenew_AMutatorThatRefusesFallsBackToPutAndDelete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := model.New(&clock.Local{})
		l := newLocker(t, refusingMutator(t, s), nil)
		h, err := l.Lock(ctx, "id")
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * ttl) // many renewals, each past the lease window's end
		select {
		case <-h.Lost():
			t.Fatal("the lease was lost: the refused PutDelete failed every renewal")
		default:
		}
		got := cells(t, s, "id")
		if len(got) != 1 || !strings.HasPrefix(got[0], "~o/") {
			t.Fatalf("cells after the hold's renewals = %v, want its owner cell alone (the queue cell given up)", got)
		}
		if !l.noMutator.Load() {
			t.Fatal("the Locker did not note the refusal: it would send a PutDelete at every renewal")
		}
		if err := h.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// With Handoff on, a release over such a store is a plain one: the next
// waiter gets the lock as without Handoff.
func TestHandoff_AMutatorThatRefusesReleasesAsWithoutHandoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := model.New(&clock.Local{})
		n := &memNet{handlers: map[string]func([]byte){}}
		lc, _, _ := handedRun(t, refusingMutator(t, s), n, true)
		if err := lc.Unlock(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := cells(t, s, "x"); len(got) != 0 {
			t.Fatalf("cells after every release = %v, want none", got)
		}
	})
}
