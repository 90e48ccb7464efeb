package shadowlock

import (
	"context"
	"errors"
	"sync"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/bugs"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/internal/lease"
)

// The overlapped first round, for package combined (its doc.go has the
// argument). A combined acquisition starts it as the queue half's claim is
// sent, so that the legacy round's requests travel beside the queue's:
//
//	7     put  our shadow cell              (beside the queue claim's write)
//	8     read the shadow row               (beside the queue claim's read)
//	10    read the main row
//	      wait: the queue half held → go on; its claim lost → give up
//	11    put  our main cell                (not before the queue is held)
//	12    delete our shadow cell            (in flight while the lock is used)
//
// Listing 4's step 1 is left out of this round: it only sends a round that
// finds the lock held home early, and step 10's read decides the same
// (exactly one other owner's cell: AnotherThreadIsOwner). Steps 7 → 8 → 10 →
// 11 → 12 keep listing 4's order, each sent after the previous one's reply,
// which is all its safety argument uses. The rounds after the first, if the
// first does not succeed, are listing 4's rounds as Acquire runs them.

// errGaveUp ends a prepared acquisition whose caller aborted it.
var errGaveUp = errors.New("shadowlock: prepared round given up")

// prepared is a part acquisition started by Prepare.
type prepared struct {
	verdict chan bool // one value: go on (true) or give up (false)
	once    sync.Once
	done    chan struct{} // closed when the acquisition ended
	res     held.Result
	err     error
}

var _ held.Prepared = (*prepared)(nil)

// prepare starts a part acquisition (held.Source.Prepare) whose first round
// is the overlapped one: it runs up to step 10 at once and waits for Go or
// Abort before step 11. The acquisition runs on a goroutine of its own,
// registered with the Locker like any call, so Close ends it.
func (l *Locker) prepare(ctx context.Context, q held.Request) held.Prepared {
	p := &prepared{verdict: make(chan bool, 1), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.err = l.life.Do(ctx, "shadowlock", q.ID, func(ctx context.Context) error {
			r := &round{l: l, id: q.ID, owner: l.owners.Next()}
			rounds, err := l.runFrom(ctx, r, q.Try, func(ctx context.Context) (outcome, error) { return r.overlapped(ctx, p.verdict) })
			if err != nil {
				return err
			}
			p.res = held.Result{Part: newPart(r, q.Mode, q.Loss), Owner: r.owner, Since: r.since, Attempts: rounds, Requests: r.requests}
			return nil
		})
	}()
	return p
}

func (p *prepared) Go() (held.Result, error) {
	p.once.Do(func() { p.verdict <- true })
	<-p.done
	return p.res, p.err
}

func (p *prepared) Abort() { p.once.Do(func() { p.verdict <- false }) }

func (p *prepared) Wait() { <-p.done }

// overlapped is the first round of a prepared acquisition (see above). It
// returns errGaveUp, having deleted its shadow cell, when told to give up.
func (r *round) overlapped(ctx context.Context, verdict <-chan bool) (outcome, error) {
	l := r.l
	r.shadowMaybe = true // 7
	r.requests++
	r.shadowSent = lease.Stamp(l.cfg.Clock)
	if err := l.store.Put(ctx, l.cfg.shadow, r.id, r.cell()); err != nil {
		return 0, err
	}
	shadow, main, err := r.readBoth(ctx) // 8, then 10
	if err != nil {
		return 0, err
	}
	out := concurrentAttempt
	switch {
	case !layout.LegacyOnly(shadow, r.owner):
	case len(main) == 1 && !layout.LegacyOnly(main, r.owner):
		out = anotherThreadIsOwner // what step 1 would have found
	case len(main) == 0:
		out = success
	}
	var goOn bool
	select {
	case goOn = <-verdict:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	if !goOn {
		return 0, errGaveUp // cleanup deletes the shadow cell
	}
	if out != success || r.overdue(ctx) {
		if err := r.deleteShadow(ctx); err != nil { // 14
			return 0, err
		}
		return out, nil // 15 (or, from step 10's read, 6)
	}
	r.mainMaybe = true // 11
	r.requests++
	r.since = lease.Stamp(l.cfg.Clock)
	if err := l.store.Put(ctx, l.cfg.main, r.id, r.cell()); err != nil {
		return 0, err
	}
	r.deleteShadowLater(ctx) // 12
	return success, nil
}

// readBoth is steps 8 and 10: the shadow row, then the main row, the second
// read sent only after the first one's reply (the legacy argument needs
// it: a holder's main cell written before its shadow cell was deleted must
// be seen by whoever no longer sees that shadow cell). The planted
// CombinedOverlapUnsafe defect sends them together.
func (r *round) readBoth(ctx context.Context) (shadow, main []lockstep.Cell, err error) {
	if !bugs.Planted(bugs.CombinedOverlapUnsafe) {
		if shadow, err = r.read(ctx, r.l.cfg.shadow); err != nil {
			return nil, nil, err
		}
		main, err = r.read(ctx, r.l.cfg.main)
		return shadow, main, err
	}
	var mainErr error
	var wg sync.WaitGroup
	r.requests++
	wg.Go(func() { main, mainErr = r.l.store.Read(ctx, r.l.cfg.main, r.id, layout.LegacyRow()) })
	shadow, err = r.read(ctx, r.l.cfg.shadow)
	wg.Wait()
	return shadow, main, errors.Join(err, mainErr)
}

// pendingDelete is a delete in flight: err is set before done is closed.
type pendingDelete struct {
	done chan struct{}
	err  error
}

// deleteShadowLater sends step 12 once the main write has succeeded and
// does not wait for it: the acquisition returns while it is in flight, and
// the part's Release waits for it and sends it again if it failed. Until
// then (or if no Release comes) the cell expires after the TTL, as
// cleanup's would.
func (r *round) deleteShadowLater(ctx context.Context) {
	r.requests++
	r.shadowMaybe = false
	d := &pendingDelete{done: make(chan struct{})}
	r.shadowDelete = d
	l, id, owner, ts := r.l, r.id, r.owner, r.l.ts.Next()
	ctx = context.WithoutCancel(ctx)
	go func() {
		defer close(d.done)
		d.err = l.store.Delete(ctx, l.cfg.shadow, id, ts, layout.LegacyColumn(owner))
	}()
}
