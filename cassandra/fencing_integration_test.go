//go:build integration

package cassandra_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// TestFencing_TokensIncreaseAcrossOwnersInEveryMode takes one id on a real
// node with fencing on, first in a fleet of legacy and combined processes,
// then in one of combined and new processes (each fleet keeps mutual
// exclusion), every process drawing from the same global time table. Each
// holder records its token while it holds the lock, so the record is in
// ownership order: it must strictly increase, across modes and phases.
func TestFencing_TokensIncreaseAcrossOwnersInEveryMode(t *testing.T) {
	const (
		ttl    = 6 * time.Second
		rounds = 5
	)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	store := newStore(t)
	id := fmt.Sprintf("it/fencing/%x", time.Now().UnixNano())
	var n uint64
	newLocker := func(m lockstep.Mode) lockstep.Locker {
		n++
		g, err := clock.NewGlobal(store, "", &clock.Local{})
		if err != nil {
			t.Fatal(err)
		}
		process := fmt.Sprintf("fencing-it-%d", n)
		qo := &queuelock.Options{TTL: ttl, ProcessID: process, Poll: 10 * time.Millisecond}
		so := &shadowlock.Options{TTL: ttl, ProcessID: process, Rand: rand.New(rand.NewPCG(n, 5))}
		var l interface {
			lockstep.Locker
			Close(context.Context) error
		}
		switch m {
		case lockstep.ModeLegacy:
			so.Fencing = g
			l, err = shadowlock.New(store, so)
		case lockstep.ModeNew:
			qo.Fencing = g
			l, err = queuelock.New(store, qo)
		default:
			l, err = combined.New(store, &combined.Options{Queue: qo, Legacy: so, Fencing: g})
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close(context.WithoutCancel(ctx)) })
		return l
	}

	var (
		mu     sync.Mutex
		tokens []int64
		modes  []lockstep.Mode
	)
	fleet := func(ms ...lockstep.Mode) {
		var wg sync.WaitGroup
		for _, m := range ms {
			l := newLocker(m)
			wg.Go(func() {
				for range rounds {
					h, err := l.Lock(ctx, id)
					if err != nil {
						t.Errorf("%v Lock: %v", m, err)
						return
					}
					tok := h.(lockstep.Fenced).Token()
					select {
					case <-h.Lost():
						t.Errorf("%v lock lost before its token was recorded", m)
					default:
					}
					mu.Lock()
					tokens, modes = append(tokens, tok), append(modes, h.Mode())
					mu.Unlock()
					if err := h.Unlock(ctx); err != nil {
						t.Errorf("%v Unlock: %v", m, err)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	fleet(lockstep.ModeLegacy, lockstep.ModeCombined, lockstep.ModeLegacy)
	fleet(lockstep.ModeCombined, lockstep.ModeNew, lockstep.ModeNew)

	if len(tokens) != 6*rounds {
		t.Fatalf("%d owners recorded, want %d", len(tokens), 6*rounds)
	}
	for i, tok := range tokens {
		if tok <= 0 {
			t.Fatalf("owner %d (%v) has token %d", i, modes[i], tok)
		}
		if i > 0 && tok <= tokens[i-1] {
			t.Fatalf("owner %d (%v) has token %d, not above owner %d's (%v) %d", i, modes[i], tok, i-1, modes[i-1], tokens[i-1])
		}
	}
	t.Logf("%d owners across legacy, combined and new: tokens strictly increasing from %d to %d", len(tokens), tokens[0], tokens[len(tokens)-1])
}
