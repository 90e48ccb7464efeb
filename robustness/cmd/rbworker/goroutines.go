package main

import (
	"context"
	"math/rand/v2"
	"sync"

	"github.com/lockstep-go/lockstep/robustness/history"
	"github.com/lockstep-go/lockstep/robustness/register"
)

// loops runs the worker's loop until ctx ends: on this goroutine, or with
// --goroutines N on N goroutines, each a holder of its own
// (history.Holder: "<process>/g<i>") contending for the same ids through
// the one Locker, and returns their counts summed. With --local-handoff K
// the Locker passes a store hold between them in memory, up to K times in
// a row (docs/algorithms.md §4.15); each goroutine's records name it, so
// the checkers judge each one as a holder: two of them holding one id at
// once is a violation, as two processes would be.
func (w *worker) loops(ctx context.Context) (stats, error) {
	if w.c.goroutines == 1 {
		w.loop(ctx)
		return w.stats, nil
	}
	ls := make([]*worker, w.c.goroutines)
	for i := range ls {
		l, err := w.fork(i)
		if err != nil {
			return stats{}, err
		}
		ls[i] = l
	}
	var wg sync.WaitGroup
	for _, l := range ls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.loop(ctx)
		}()
	}
	wg.Wait()
	var s stats
	for _, l := range ls {
		s = s.add(l.stats)
	}
	return s, nil
}

// fork is goroutine g's loop: the worker's Locker, tracker and history,
// with its own holder name, a register client sending that name, its own
// choices (seeded from --seed and g) and counts.
func (w *worker) fork(g int) (*worker, error) {
	f := *w
	f.name = history.Holder(w.c.process, g)
	reg, err := register.NewClient(w.c.registerURL, f.name, w.c.requestTimeout)
	if err != nil {
		return nil, err
	}
	f.reg, f.stats = reg, stats{}
	f.rng = rand.New(rand.NewPCG(w.c.seed, 0x7262776b+uint64(g)+1))
	return &f, nil
}

func (s stats) add(o stats) stats {
	return stats{acquired: s.acquired + o.acquired, failed: s.failed + o.failed, lost: s.lost + o.lost,
		accepted: s.accepted + o.accepted, rejected: s.rejected + o.rejected, unknown: s.unknown + o.unknown, counter: s.counter + o.counter}
}
