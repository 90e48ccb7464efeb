package shadow

import (
	"context"
	"errors"
	"sync"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// Prepared acquisitions, for package combined (docs/algorithms.md,
// section 6.1, has the argument). A combined acquisition starts one as the queue half's claim is
// sent, so that the legacy round's requests travel beside the queue's:
//
//	7     put  our shadow cell              (beside the queue claim's write)
//	8     read the shadow row               (beside the queue claim's read)
//	10    read the main row                 (after 8's reply, as ever)
//	      gate: the queue half held → go on; its claim lost → give up
//	11    put  our main cell                (never before the gate opened)
//	12    delete our shadow cell            (in flight while the lock is used)
//
// It runs listing 5 as Acquire does, with two differences, both local. Every
// round waits at the gate before step 11 until the caller says go on (Go)
// or give up (Abort, which also ends the rounds' waits and sleeps, its cells
// deleted); so the legacy lock is never held before the queue lock is, the
// order that keeps combined processes free of deadlock. And until the gate
// opened, a round leaves listing 4's step 1 out: that read only sends a
// round that finds the lock held home early, which step 10's read decides
// as well (exactly one other owner's cell: AnotherThreadIsOwner, and its
// backoff). Steps 7 → 8 → 10 → 11 → 12 keep listing 4's order, each sent
// after the previous one's reply — all its safety argument uses — except
// that the acquisition returns before step 12's reply: the part's Release
// waits for it, and reports and retries it if it failed.

// errGaveUp ends a prepared acquisition whose caller aborted it.
var errGaveUp = errors.New("shadowlock: prepared acquisition given up")

// prepared is a part acquisition started by Prepare.
type prepared struct {
	verdict chan bool // one value: go on (true) or give up (false)
	once    sync.Once
	cancel  context.CancelCauseFunc
	done    chan struct{} // closed when the acquisition ended
	res     held.Result
	err     error
}

var _ held.Prepared = (*prepared)(nil)

// Prepare starts taking a part whose first round runs up to its decision at
// once and then waits for held.Prepared.Go: package combined runs it beside
// the queue half's claim (docs/algorithms.md, section 6.1). Its rounds wait
// at the gate before step 11. It runs on a goroutine of its own, registered
// with the Locker like any call, so Close ends it.
func (l *Locker) Prepare(ctx context.Context, q held.Request) held.Prepared {
	ctx, cancel := context.WithCancelCause(ctx)
	p := &prepared{verdict: make(chan bool, 1), cancel: cancel, done: make(chan struct{})}
	lifecycle.Go(l.cfg.Clock, func() {
		defer close(p.done)
		defer cancel(nil)
		p.res, p.err = l.acquire(ctx, q, p.verdict)
	})
	return p
}

func (p *prepared) Go() (held.Result, error) {
	p.once.Do(func() { p.verdict <- true })
	<-p.done
	return p.res, p.err
}

func (p *prepared) Abort() {
	p.once.Do(func() {
		p.verdict <- false
		p.cancel(errGaveUp)
	})
}

func (p *prepared) Wait() { <-p.done }

// gaveUp reports whether err ends a prepared acquisition its caller aborted.
func gaveUp(ctx context.Context, err error) bool {
	return errors.Is(err, errGaveUp) || errors.Is(context.Cause(ctx), errGaveUp)
}

// await is the gate of a prepared acquisition's round: it returns once the
// caller said go on (at once after that, and for a round of any other
// acquisition), or errGaveUp.
func (r *round) await(ctx context.Context) error {
	if r.gate == nil || r.opened {
		return nil
	}
	select {
	case ok := <-r.gate:
		if !ok {
			return errGaveUp
		}
		r.opened = true
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// readRows is steps 8 and 10: the shadow row, then, if we are alone there
// (step 9), the main row, sent only after the shadow read's reply. The
// legacy argument needs that order: whoever no longer sees a holder's
// shadow cell must see the holder's main cell, written before that shadow
// cell was deleted. The planted CombinedOverlapUnsafe defect sends the two
// reads of a prepared acquisition together.
func (r *round) readRows(ctx context.Context) (shadow, main []lockstep.Cell, err error) {
	if r.gate == nil || !r.l.cfg.knobs.CombinedOverlapUnsafe {
		if shadow, err = r.read(ctx, r.l.cfg.shadow); err != nil || !layout.LegacyOnly(shadow, r.owner) {
			return shadow, nil, err
		}
		main, err = r.read(ctx, r.l.cfg.main)
		return shadow, main, err
	}
	var mainErr error
	var wg sync.WaitGroup
	r.requests++
	wg.Add(1)
	lifecycle.Go(r.l.cfg.Clock, func() {
		defer wg.Done()
		main, mainErr = r.l.store.Read(ctx, r.l.cfg.main, r.id, layout.LegacyRow())
	})
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
// the part's Release waits for it and, if it failed, sends it again (an
// error is reported only if that fails too; the next Release retries). Until then, or if no Release comes, the cell
// expires after the TTL, as cleanup's would.
func (r *round) deleteShadowLater(ctx context.Context) {
	r.requests++
	r.shadowMaybe = false
	d := &pendingDelete{done: make(chan struct{})}
	r.shadowDelete = d
	l, id, owner, ts := r.l, r.id, r.owner, r.l.ts.Next()
	ctx = context.WithoutCancel(ctx)
	lifecycle.Go(l.cfg.Clock, func() {
		defer close(d.done)
		d.err = l.store.Delete(ctx, l.cfg.shadow, id, ts, layout.LegacyColumn(owner))
	})
}
