package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd/client"
	"github.com/lockstep-go/lockstep/robustness/history"
	"github.com/lockstep-go/lockstep/robustness/register"
)

// worker is one loop of the process and what it needs: the process's
// one, or with --goroutines one per goroutine (goroutines.go), which share
// everything but the holder's name, its register client, its choices and
// its counts.
type worker struct {
	c       config
	name    string // the holder this loop's records and register requests name
	clk     *history.Clock
	hw      *history.Writer
	session *gocql.Session
	locker  locker
	local   locker // DC-local locks (--local-share), nil without
	reg     *register.Client
	moves   *history.Writer // a fail-over lockd worker's moves (--moves-history), else nil
	tr      *tracker
	rng     *rand.Rand
	stats   stats         // the loop's counts
	histErr *atomic.Int64 // history writes that failed, from any goroutine
}

// stats are the worker's own counts, printed at exit.
type stats struct {
	acquired, failed, lost, accepted, rejected, unknown, counter int
}

func (s stats) String() string {
	return fmt.Sprintf("%d acquired, %d failed acquisitions, %d lost, fenced writes %d accepted %d rejected %d unknown, %d counter writes",
		s.acquired, s.failed, s.lost, s.accepted, s.rejected, s.unknown, s.counter)
}

func newWorker(c config, clk *history.Clock, hw *history.Writer) (*worker, error) {
	reg, err := register.NewClient(c.registerURL, c.process, c.requestTimeout)
	if err != nil {
		return nil, err
	}
	w := &worker{c: c, name: c.process, clk: clk, hw: hw, reg: reg, rng: rand.New(rand.NewPCG(c.seed, 0x7262776b)), histErr: &atomic.Int64{}}
	w.tr = &tracker{w: w, window: window(c)}
	if len(c.lockdURLs) > 0 {
		w.tr.lockd, w.tr.window = true, 0
		var onMove func(client.Move)
		if c.movesPath != "" {
			if w.moves, err = history.Create(c.movesPath); err != nil {
				return nil, err
			}
			onMove = w.recordMove
		}
		w.locker = newLockdLocker(c, onMove)
		return w, nil
	}
	session, stores, err := dial(c)
	if err != nil {
		return nil, err
	}
	w.session = session
	if w.locker, err = newLocker(c, stores.global, w.tr); err != nil {
		session.Close()
		return nil, err
	}
	if c.localShare > 0 {
		if w.local, err = newLocalLocker(c, stores.local, w.tr); err != nil {
			_ = w.locker.Close(context.Background())
			session.Close()
			return nil, err
		}
	}
	return w, nil
}

// close releases whatever the locker still holds and disconnects.
func (w *worker) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 4*w.c.requestTimeout)
	defer cancel()
	err := w.locker.Close(ctx)
	if w.local != nil {
		err = errors.Join(err, w.local.Close(ctx))
	}
	if w.session != nil {
		w.session.Close()
	}
	if w.moves != nil {
		err = errors.Join(err, w.moves.Close())
	}
	return err
}

// record appends r to the history. A failed write does not stop the work
// (the other workers' histories stay meaningful); it is counted, and the
// worker exits non-zero at the end, saying its history is incomplete.
func (w *worker) record(r history.Record) {
	r.DC, r.Scope = w.c.dc, history.ScopeGlobal
	if w.tr.lockd && r.Mode != "" {
		r.Mode = lockdMode
	}
	if _, _, ok := history.SplitLocal(r.Lock); ok {
		r.Scope = history.ScopeLocal
	}
	if err := w.hw.Write(r); err != nil {
		w.histErr.Add(1)
		fmt.Fprintln(os.Stderr, "rbworker:", err)
	}
}

// loop takes locks until ctx ends: a share --manager-share of the
// acquisitions are the lock manager's (manager.go), the others plain
// exclusive Locks of one id with writes to the registers.
func (w *worker) loop(ctx context.Context) {
	for ctx.Err() == nil {
		if w.c.localShare > 0 && w.rng.Float64() < w.c.localShare {
			w.once(ctx, w.localOp())
			continue
		}
		if w.c.managerShare > 0 && w.rng.Float64() < w.c.managerShare/(1-w.c.localShare) {
			w.once(ctx, w.managerOp())
			continue
		}
		id := fmt.Sprintf("lock-%d", w.rng.IntN(w.c.locks))
		w.once(ctx, op{key: id, ids: []string{id}, writes: true,
			take: func(ctx context.Context) (lockstep.Lock, error) { return w.locker.Lock(ctx, id) }})
	}
}

// op is one acquisition the worker makes.
type op struct {
	key     string   // the history's Lock of the hold
	members []string // the requests, "<id>:<access>", for a lock-manager acquisition; nil for a plain Lock
	ids     []string // every id whose lease the hold has (ancestors of hierarchical ids included)
	base    string   // the id whose counter a reader reads
	writes  bool     // a plain exclusive hold: writes the registers
	take    func(ctx context.Context) (lockstep.Lock, error)
}

// once is one acquisition: Lock, the critical section, Unlock. The critical
// section and the release run to their end even when ctx ends meanwhile.
func (w *worker) once(ctx context.Context, o op) {
	id := o.key
	h := w.tr.begin(w.name, id, o.members, o.ids, w.clk.Now())
	defer w.tr.end(h)
	lctx, cancel := context.WithTimeout(ctx, w.c.lockTimeout)
	l, err := o.take(lctx)
	cancel()
	ret := w.clk.Now()
	if err != nil {
		w.stats.failed++
		w.record(history.Record{Process: w.name, Lock: id, Op: history.Acquire, InvokeNS: h.invoke, ReturnNS: ret,
			Outcome: history.Fail, Err: err.Error(), Members: o.members})
		w.sleep(ctx, time.Duration(w.rng.Int64N(int64(100*time.Millisecond))))
		return
	}
	w.stats.acquired++
	w.tr.held(h, l)
	w.record(history.Record{Process: w.name, Lock: id, Op: history.Acquire, Token: h.token, Mode: h.mode.String(),
		InvokeNS: h.invoke, ReturnNS: ret, Outcome: history.OK, Owner: h.owner,
		LeaseDeadlineNS: w.tr.deadline(h), LeaseWindowNS: w.tr.window, Members: o.members})
	if o.writes {
		w.critical(h, l)
	} else {
		w.read(h, l, o.base)
	}
	w.release(h, l)
}

// lost reports whether l's lease is lost, recording the first sighting. A
// worker planted with lockd-ignores-lost never looks.
func (w *worker) lost(h *hold, l lockstep.Lock) bool {
	if w.c.planted.ignoreLost {
		return false
	}
	select {
	case <-l.Lost():
		w.recordLost(h, w.clk.Now(), false)
		return true
	default:
		return false
	}
}

// recordLost records the lost op once: from the deadline (or the sighting,
// if the library signalled loss earlier, as the census can) to the sighting.
// inUnlock says the loss surfaced in an Unlock invoked at seen while the
// lock's Lost was open (history.Record.InUnlock); a lockd hold's record
// then carries when its watcher saw Lost close (KnownNS), the evidence.
func (w *worker) recordLost(h *hold, seen int64, inUnlock bool) {
	if h.lost {
		return
	}
	h.lost = true
	w.stats.lost++
	d, expired, known := w.tr.deadline(h), false, int64(0)
	if w.tr.lockd {
		d = lockdDeadline(h, 100*time.Millisecond) // Lost is closed: the watcher fires now
		known = h.loss.known(0)
		expired = known != 0 && h.loss.expired
	}
	if w.c.planted.ignoreLost {
		d = seen // it believed it held the lock until Unlock said otherwise
	}
	r := history.Record{Process: w.name, Lock: h.id, Op: history.Lost, Token: h.token, Mode: h.mode.String(),
		InvokeNS: min(d, seen), ReturnNS: seen, Outcome: history.OK, LeaseDeadlineNS: d, Expired: expired}
	if w.tr.lockd && inUnlock {
		r.InUnlock, r.KnownNS = true, known
	}
	w.record(r)
}

// critical reads the fenced register (with the lock's token, which raises
// the fence) and the unfenced counter, works (a random pause up to --hold),
// then writes both incremented, looking at Lost() before the reads and after
// the writes. It does not look between the work and the writes, on purpose:
// a real client's pause (GC, SIGSTOP) can land between any look at Lost and
// the write that follows, so a look there only narrows the window the fence
// must close. Leaving the work in that window lets the client-pause control
// show lost updates on the counter, and stale writes the fenced register
// rejects, within minutes instead of hours.
func (w *worker) critical(h *hold, l lockstep.Lock) {
	ctx := context.Background() // the register client bounds each request
	if w.lost(h, l) {
		return
	}
	v, _, err := w.reg.ReadFenced(ctx, h.id, h.token)
	if err != nil {
		return
	}
	c, err := w.reg.ReadCounter(ctx, h.id)
	if err != nil || w.lost(h, l) {
		return
	}
	w.sleep(ctx, w.workTime())
	inv := w.clk.Now()
	ok, err := w.reg.WriteFenced(ctx, h.id, h.token, v, v+1)
	w.recordWrite(h, history.Fenced, inv, v, ok, err)
	inv = w.clk.Now()
	err = w.reg.WriteCounter(ctx, h.id, c, c+1)
	w.recordWrite(h, history.Counter, inv, c, true, err)
	w.lost(h, l)
}

func (w *worker) recordWrite(h *hold, reg string, inv, read int64, accepted bool, err error) {
	r := history.Record{Process: w.name, Lock: h.id, Op: history.Write, Token: h.token, Mode: h.mode.String(),
		InvokeNS: inv, ReturnNS: w.clk.Now(), Outcome: history.OK, Register: reg, Read: read, Value: read + 1}
	switch {
	case err != nil:
		r.Outcome, r.ReturnNS, r.Err = history.Unknown, history.Never, err.Error()
		w.stats.unknown++
	case !accepted:
		r.Outcome = history.Fail
		w.stats.rejected++
	case reg == history.Fenced:
		w.stats.accepted++
	default:
		w.stats.counter++
	}
	w.record(r)
}

// release unlocks, retrying once if the delete failed. A loss Unlock
// reports counts as seen when Unlock was called: the worker did no work for
// the lock after that. A delete that failed twice has an unknown outcome:
// the cells expire after their TTL.
func (w *worker) release(h *hold, l lockstep.Lock) {
	inv := w.clk.Now()
	// Whether the lock's Lost was open as Unlock is invoked (a lockd
	// hold's is checked against its own deadline then): a loss Unlock
	// reports afterwards surfaced in the Unlock. The planted worker that
	// ignores Lost does not look.
	open := false
	if w.tr.lockd && !w.c.planted.ignoreLost {
		select {
		case <-l.Lost():
		default:
			open = true
		}
	}
	var err error
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 3*w.c.requestTimeout)
		err = l.Unlock(ctx)
		cancel()
		if errors.Is(err, lockstep.ErrLost) {
			w.recordLost(h, inv, open)
		}
		if err == nil || onlyLost(err) {
			break
		}
	}
	r := history.Record{Process: w.name, Lock: h.id, Op: history.Release, Token: h.token, Mode: h.mode.String(),
		InvokeNS: inv, ReturnNS: w.clk.Now(), Outcome: history.OK}
	if err != nil && !onlyLost(err) {
		r.Outcome, r.ReturnNS, r.Err = history.Unknown, history.Never, err.Error()
	}
	w.record(r)
}

// onlyLost reports whether err says only that the lease had been lost (the
// cells were deleted all the same).
func onlyLost(err error) bool {
	if !errors.Is(err, lockstep.ErrLost) {
		return false
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !errors.Is(e, lockstep.ErrLost) {
				return false
			}
		}
	}
	return true
}

// workTime draws the length of a critical section's work: from --min-hold
// to --hold.
func (w *worker) workTime() time.Duration {
	return w.c.minHold + time.Duration(w.rng.Int64N(int64(w.c.hold-w.c.minHold)+1))
}

// sleep waits d or until ctx ends.
func (w *worker) sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
