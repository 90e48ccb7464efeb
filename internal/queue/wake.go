package queue

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/wakeup"
)

// Wake-ups on release (Options.Wake; docs/algorithms.md, section 4.9,
// has the argument). A waiter registers its queue cell here for as long as it
// waits; a wake-up naming that cell, authenticated and fresh, ends the
// waiter's current sleep, or the next one if it is awake, so that it claims
// at once (pace.go, onWake). Nothing else: the claim's read decides, as
// after a poll.

// Bounds on what wake-ups can make a Locker do.
const (
	// senderBurst and senderRate bound the wake-ups accepted from one
	// sending process (a token bucket): a releaser sends one per release.
	senderBurst = 64
	senderRate  = 1000 // per second
	// maxSenders bounds the buckets kept; beyond it they start afresh.
	maxSenders = 1024
)

// waker receives a Locker's wake-ups. Safe for concurrent use.
type waker struct {
	l     *Locker
	key   []byte
	mu    sync.Mutex
	slots map[string]*wakeSlot // by the waiter's queue column
	// senders are the token buckets per sending process.
	senders map[string]*bucket
}

// wakeSlot is one waiting acquisition.
type wakeSlot struct {
	id     string
	woken  bool               // a wake-up arrived that no read has consumed
	handed int64              // the handed cell's timestamp a handoff's wake-up named (handoff.go), 0 if none
	grant  bool               // that wake-up was a grant (handoff.go)
	last   int64              // elapsed µs of the last read a wake-up caused
	cancel context.CancelFunc // ends the sleep in progress, if any
}

type bucket struct {
	tokens float64
	at     int64 // elapsed µs of the last refill
	// seen is the replay window: the wake-ups accepted from this sender,
	// by nonce and waiter, with the elapsed µs each was accepted at.
	seen map[replayKey]int64
}

// replayKey names one wake-up of a sender: a releaser draws each one's
// nonce from its Locker's strictly increasing timestamps.
type replayKey struct {
	nonce uint64
	to    string
}

// maxSeen bounds a sender's replay window; beyond it the entries older than
// replayKeep are dropped, and if that is not enough, all of them.
const maxSeen = 4096

func newWaker(l *Locker) *waker {
	w := &waker{l: l, key: l.cfg.wake.Key, slots: map[string]*wakeSlot{}, senders: map[string]*bucket{}}
	l.cfg.wake.Transport.Handle(w.handle)
	return w
}

// handle takes one received datagram: forged, stale, misdirected or
// over-rate ones are dropped; the rest mark their waiter woken.
func (w *waker) handle(b []byte) {
	m, err := wakeup.Open(w.key, b)
	if err != nil {
		return
	}
	cfg := &w.l.cfg
	if m.Table != cfg.table {
		return
	}
	// A wake-up older (or from further ahead) than a TTL is refused: a
	// replay can then cost a read only while the queue cell it names may
	// still wait, and a slot's gap bounds those reads anyway.
	if d := cfg.Clock.Now() - m.Sent; d > cfg.Lease.TTL.Microseconds() || d < -cfg.Lease.TTL.Microseconds() {
		return
	}
	if w.wake(m, cfg.Clock.Elapsed()) {
		w.l.wakeArrived() // without mu held: it may call the Observer
	}
}

// wake marks the waiter m names woken, unless m is over its sender's rate,
// names no waiter of ours, or was seen before (a replay). It reports
// whether it did.
func (w *waker) wake(m wakeup.Message, now int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.allow(m.Sender, now) {
		return false
	}
	s, ok := w.slots[m.To]
	if !ok || s.id != m.ID || !w.firstSight(m, now) {
		return false
	}
	s.woken = true
	s.handed, s.grant = parseHandoffFrom(m.From)
	if s.cancel != nil {
		s.cancel()
	}
	return true
}

// allow spends one token of sender's bucket. Called with mu held.
func (w *waker) allow(sender string, now int64) bool {
	b, ok := w.senders[sender]
	if !ok {
		if len(w.senders) >= maxSenders {
			clear(w.senders)
		}
		b = &bucket{tokens: senderBurst, at: now}
		w.senders[sender] = b
	}
	b.tokens = min(senderBurst, b.tokens+float64(now-b.at)*senderRate/1e6)
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// firstSight reports whether m was not accepted before from its sender,
// and remembers it: a replayed datagram, sealed and fresh as it is, wakes
// no one twice. A wake-up is refused as stale once its Sent is a TTL behind
// our clock, and a sender's clock may lead ours by up to a TTL (handle), so
// remembering one for three TTLs covers its whole fresh life. Called with
// mu held, after allow (which made the sender's bucket).
func (w *waker) firstSight(m wakeup.Message, now int64) bool {
	b := w.senders[m.Sender]
	k := replayKey{nonce: m.Nonce, to: m.To}
	if _, ok := b.seen[k]; ok {
		return false
	}
	if b.seen == nil {
		b.seen = map[replayKey]int64{}
	}
	if len(b.seen) >= maxSeen {
		keep := 3 * w.l.cfg.Lease.TTL.Microseconds()
		for k, at := range b.seen {
			if now-at > keep {
				delete(b.seen, k)
			}
		}
		if len(b.seen) >= maxSeen {
			clear(b.seen) // a flood: the rate limit still bounds what replays cost
		}
	}
	b.seen[k] = now
	return true
}

func (w *waker) register(col, id string) {
	w.mu.Lock()
	w.slots[col] = &wakeSlot{id: id}
	w.mu.Unlock()
}

// takeHanded returns and forgets the handed cell's timestamp the last
// wake-up for col named (0 if none), and whether that wake-up was a grant.
func (w *waker) takeHanded(col string) (ts int64, grant bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.slots[col]
	if s == nil {
		return 0, false
	}
	ts, grant = s.handed, s.grant
	s.handed, s.grant = 0, false
	return ts, grant
}

func (w *waker) unregister(col string) {
	w.mu.Lock()
	delete(w.slots, col)
	w.mu.Unlock()
}

// sleep waits up to d on ctx, less if a wake-up for col arrives (or arrived
// since the last read): woken says so. Wake-ups make at most one early read
// per gap: one that arrives sooner after the last is kept for later.
func (w *waker) sleep(ctx context.Context, col string, d, gap time.Duration) (woken bool, err error) {
	clk := w.l.cfg.Clock
	w.mu.Lock()
	s := w.slots[col]
	if s == nil { // not registered: a plain sleep
		w.mu.Unlock()
		return false, clk.Sleep(ctx, d)
	}
	now := clk.Elapsed()
	if wait := time.Duration(s.last+gap.Microseconds()-now) * time.Microsecond; wait > 0 {
		// Too soon after a woken read: sleep unwakeably until the gap ends
		// (or d does), then look again.
		w.mu.Unlock()
		if err := clk.Sleep(ctx, min(d, wait)); err != nil || wait >= d {
			return false, err
		}
		return w.sleep(ctx, col, d-wait, gap)
	}
	if s.woken {
		s.woken, s.last = false, now
		w.mu.Unlock()
		return true, nil
	}
	sctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	w.mu.Unlock()
	err = clk.Sleep(sctx, d)
	cancel()
	w.mu.Lock()
	s.cancel = nil
	if s.woken && ctx.Err() == nil {
		s.woken, s.last, woken, err = false, clk.Elapsed(), true, nil
	}
	w.mu.Unlock()
	if err != nil && ctx.Err() == nil && sctx.Err() != nil {
		err = nil // ended by a wake-up consumed meanwhile
	}
	return woken, err
}

// send wakes the waiter of queue cell e (which published e.Wake) on behalf
// of the acquisition whose queue cell is from: best effort, never blocking.
func (l *Locker) sendWake(id, from string, e layout.Entry) {
	if l.cfg.wake == nil || e.Wake == "" {
		return
	}
	m := wakeup.Message{Table: l.cfg.table, ID: id, From: from, To: e.Column, Sender: l.cfg.ID,
		Sent: l.cfg.Clock.Now(), Nonce: uint64(l.ts.Next())}
	b, err := wakeup.Seal(l.cfg.wake.Key, m)
	if err == nil {
		err = l.cfg.wake.Transport.Send(e.Wake, b)
	}
	if err != nil {
		l.cfg.Logger.Debug("queuelock: wake-up not sent", slog.String("id", id), slog.String("to", e.Wake), slog.Any("err", err))
	}
}
