package deadlock

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// Wait is one blocking call's wait for one member, published once it has
// lasted After.
type Wait struct {
	d        *Detector
	identity any
	holds    func() []Hold
	outer    context.Context // Begin's ctx, the caller's

	// cancel ends the take's ctx; done is closed once the watch returned,
	// having set cycle if this wait is the victim of one.
	cancel context.CancelCauseFunc
	done   chan struct{}
	cycle  []Record

	// mu serializes a round (write, reads) with Retract and with the end.
	mu        sync.Mutex
	rec       Record // rec.Name changes on a retraction
	published bool   // a write of rec.Name may have been applied, and no delete was acknowledged
	listed    []Hold // the holdings last written
	lastPut   int64  // clock.Elapsed when the last write returned
	ended     bool

	took atomic.Uint32 // 1 + the access the take really takes (Takes); 0: the one asked
}

// Begin starts identity's wait for req, its record showing comment (the
// unit of work's, "" for none): the Locker's take of req runs
// with the returned ctx, and its outcome is given to the Wait's Finish.
// holds returns what identity holds; it is called at each write. After
// After, the wait is published and looked at every Every; if it is found
// the victim of a cycle (doc.go), the returned ctx is cancelled, so that
// the take ends holding nothing, and Finish turns its error into a
// *lockstep.DeadlockError. The detector never calls the take: it only
// cancels its ctx.
func (d *Detector) Begin(ctx context.Context, identity any, comment string, req lockstep.Request, holds func() []Hold) (*Wait, context.Context) {
	w := &Wait{d: d, identity: identity, holds: holds, outer: ctx,
		rec: Record{Name: d.name(), Process: d.proc, Waits: req, Comment: comment, Start: d.clock.Now()}}
	d.track(w)
	inner, cancel := context.WithCancelCause(ctx)
	w.cancel, w.done = cancel, make(chan struct{})
	lifecycle.Go(d.clock, func() {
		defer close(w.done)
		if w.cycle = w.watch(inner); w.cycle != nil {
			cancel(errWithdrawn)
		}
	})
	return w, inner
}

// Finish ends the wait with the take's outcome (l, err): it stops the
// watch, deletes the record (R1) and returns the outcome, or, if the wait
// was the victim of a cycle and the take was not granted anyway, a
// *lockstep.DeadlockError. An outer ctx that ended returns the take's
// error. Call it once, after the take returned.
func (w *Wait) Finish(l lockstep.Lock, err error) (lockstep.Lock, error) {
	d, ctx := w.d, w.outer
	w.cancel(nil)
	<-w.done
	lifecycle.Resumed(ctx, d.clock)
	w.end(context.WithoutCancel(ctx))
	d.untrack(w)
	if err == nil || w.cycle == nil || ctx.Err() != nil {
		return l, err
	}
	return nil, &lockstep.DeadlockError{Cycle: Members(w.cycle)}
}

// Takes says that the take this wait is for takes its id in access a,
// stronger than the one asked (manager.Step.Take: the legacy lock takes
// every request exclusively): the record's next write asks for a. It
// keeps its name: the record stays true, since until the take began it
// had taken nothing, and from then on it waits in a (docs/algorithms.md,
// section 8.5).
//
// It does not wait for a round in flight (w.mu is held across store
// requests): the access is handed over through an atomic, read at each
// write.
func (w *Wait) Takes(a lockstep.Access) {
	w.took.Store(uint32(a) + 1)
}

// watch waits After, then runs a round every Every until ctx ends or a
// round finds the wait the victim of a cycle, which it returns.
func (w *Wait) watch(ctx context.Context) []Record {
	if w.d.clock.Sleep(ctx, w.d.opt.After) != nil {
		return nil
	}
	for {
		if c := w.round(ctx); c != nil {
			return c
		}
		if w.d.clock.Sleep(ctx, w.d.opt.Every) != nil {
			return nil
		}
	}
}

// round writes the record, reads the partition, and if it shows a cycle of
// which this wait is the victim, reads again: the cycle counts only among
// records both reads returned, as the first read returned them (Lemma 11).
// A store error skips the round.
func (w *Wait) round(ctx context.Context) []Record {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended || w.publish(ctx) != nil {
		return nil
	}
	first, err := w.d.read(ctx)
	if err != nil || w.d.victimCycle(first, w.rec.Name) == nil {
		return nil
	}
	second, err := w.d.read(ctx)
	if err != nil {
		return nil
	}
	again := map[string]bool{}
	for _, r := range second {
		again[r.Name] = true
	}
	both := slices.DeleteFunc(first, func(r Record) bool { return !again[r.Name] })
	return w.d.victimCycle(both, w.rec.Name)
}

// publish writes the record with what identity holds now. Under w.mu.
func (w *Wait) publish(ctx context.Context) error {
	if a := w.took.Load(); a > 0 {
		w.rec.Waits.Access = lockstep.Access(a - 1)
	}
	w.rec.Holds = w.holds()
	v, err := w.rec.encode()
	if err != nil {
		return err
	}
	err = w.d.store.Put(ctx, w.d.opt.Table, w.d.opt.Partition,
		lockstep.Cell{Column: w.rec.Name, Value: v, Timestamp: w.d.ts.Next(), TTL: w.d.ttl})
	w.lastPut = w.d.clock.Elapsed()
	if err == nil || !refused(err) { // an unknown outcome may have been applied
		w.published, w.listed = true, w.rec.Holds
	}
	return err
}

// end stops the wait for good and deletes its record (R1). Called once, by
// Finish, after the watch goroutine returned.
func (w *Wait) end(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended = true
	w.remove(ctx)
}

// retract deletes the record if it lists id, and names the wait afresh for
// its next write (R2).
func (w *Wait) retract(ctx context.Context, id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended || !w.published || !slices.ContainsFunc(w.listed, func(h Hold) bool { return h.ID == id }) {
		return
	}
	w.remove(ctx)
	w.rec.Name = w.d.name()
}

// remove deletes the published record, stamped above its writes, retrying
// until a delete is acknowledged or the last write has surely expired.
// Under w.mu.
func (w *Wait) remove(ctx context.Context) {
	if !w.published {
		return
	}
	ts := w.d.ts.Next()
	deadline := w.lastPut + w.d.grace.Microseconds()
	for {
		err := w.d.store.Delete(ctx, w.d.opt.Table, w.d.opt.Partition, ts, w.rec.Name)
		if err == nil || w.d.clock.Elapsed() >= deadline {
			break
		}
		pause := min(w.d.opt.Every, time.Duration(deadline-w.d.clock.Elapsed())*time.Microsecond)
		if w.d.clock.Sleep(ctx, pause) != nil {
			break
		}
	}
	w.published, w.listed = false, nil
}

// refused reports whether err says the store applied nothing.
func refused(err error) bool { return errors.Is(err, lockstep.ErrRefused) }
