package migration

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
	"github.com/lockstep-go/lockstep/migration/census"
)

// heartbeat keeps one process's census entry: the process's state (configured
// mode, held locks and acquisitions in flight, by mode), the writes that
// publish it, and the epochs that say whether the published entry can be
// trusted to be live. Safe for concurrent use.
//
// An epoch is a span during which successful writes were never a lease
// window apart (internal/lease: (TTL − 1s − MaxServerSkew)/2, on elapsed
// time), so the entry never expired. It ends when a window passes without a
// successful write; every lock taken in it is then signalled lost, because the
// Controller may no longer see this process. The next successful write
// starts a new epoch.
type heartbeat struct {
	store  lockstep.Store
	clock  lockstep.Clock
	ts     *clock.Timestamps
	table  string
	ttl    time.Duration
	window time.Duration // lease.Config.Window of the entry's TTL
	flag   FlagSource
	logger *slog.Logger
	self   census.Entry // process, host, version

	stop context.CancelFunc
	wg   sync.WaitGroup

	mu         sync.Mutex
	configured lockstep.Mode
	held       [lockstep.ModeNew + 1]int
	acquiring  [lockstep.ModeNew + 1]int
	version    uint64                       // bumped on every change of the state above
	since      [lockstep.ModeNew + 1]uint64 // version at which each mode last came into use
	written    uint64                       // version of the last successful write of this epoch
	lastOK     int64                        // lease.Stamp: when the last successful write was sent
	everOK     bool                         // some write succeeded
	stale      bool                         // between epochs
	epoch      uint64
	losses     map[*held.Loss]struct{} // of the locks held from the current epoch: fired when it ends
	dirty      bool                    // the shape changed since the last write's snapshot
	wake       context.CancelFunc
	lastStart  int64 // lease.Stamp: when the last write took its snapshot
	lastTS     int64 // timestamp of the newest successful write
}

// ticket is an acquisition registered with the heartbeat.
type ticket struct {
	mode  lockstep.Mode
	epoch uint64
}

func newHeartbeat(store lockstep.Store, clk lockstep.Clock, table string, entry lease.Config, flag FlagSource, logger *slog.Logger, self census.Entry) *heartbeat {
	return &heartbeat{store: store, clock: clk, ts: clock.NewTimestamps(clk), table: table, ttl: entry.TTL, window: entry.Window(), flag: flag,
		logger: logger, self: self, stale: true}
}

func (h *heartbeat) limit() int64 { return h.window.Microseconds() }

func (h *heartbeat) inUse(m lockstep.Mode) bool {
	return h.configured == m || h.held[m] > 0 || h.acquiring[m] > 0
}

// shape is what a prompt census update reports: the configured mode, the
// modes of held locks and the modes in use.
func (h *heartbeat) shape() (s uint32) {
	s = uint32(h.configured)
	for m := lockstep.ModeLegacy; m <= lockstep.ModeNew; m++ {
		if h.held[m] > 0 {
			s |= 1 << (2 + m)
		}
		if h.inUse(m) {
			s |= 1 << (6 + m)
		}
	}
	return s
}

// change applies f to the state under the mutex and bumps the version. When
// a mode comes into use it records the version (see trusted); when the shape
// changed it marks the entry dirty and wakes the heartbeat loop.
func (h *heartbeat) change(f func()) {
	h.mu.Lock()
	var before [lockstep.ModeNew + 1]bool
	for m := lockstep.ModeLegacy; m <= lockstep.ModeNew; m++ {
		before[m] = h.inUse(m)
	}
	shape := h.shape()
	f()
	h.version++
	for m := lockstep.ModeLegacy; m <= lockstep.ModeNew; m++ {
		if !before[m] && h.inUse(m) {
			h.since[m] = h.version
		}
	}
	var wake context.CancelFunc
	if h.shape() != shape {
		h.dirty, wake = true, h.wake
	}
	h.mu.Unlock()
	if wake != nil {
		wake()
	}
}

func (h *heartbeat) setConfigured(m lockstep.Mode) {
	h.mu.Lock()
	same := h.configured == m
	h.mu.Unlock()
	if !same {
		h.change(func() { h.configured = m })
	}
}

// begin registers an acquisition in mode m.
func (h *heartbeat) begin(m lockstep.Mode) { h.change(func() { h.acquiring[m]++ }) }

// current returns a ticket for mode m in the current epoch.
func (h *heartbeat) current(m lockstep.Mode) ticket {
	h.mu.Lock()
	defer h.mu.Unlock()
	return ticket{mode: m, epoch: h.epoch}
}

// sinceOf returns the version at which m last came into use.
func (h *heartbeat) sinceOf(m lockstep.Mode) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.since[m]
}

// finish ends an acquisition; held says whether it returned a lock.
func (h *heartbeat) finish(t ticket, held bool) {
	h.change(func() {
		h.acquiring[t.mode]--
		if held {
			h.held[t.mode]++
		}
	})
}

// released records the release of a lock taken in mode m.
func (h *heartbeat) released(m lockstep.Mode) { h.change(func() { h.held[m]-- }) }

// trusted reports whether an acquisition holding t may proceed: its epoch is
// still current, the last successful write was sent less than a window ago, and
// (if covered) a write completed in this epoch already published mode t.mode.
func (h *heartbeat) trusted(t ticket, covered bool) (ok bool, written uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ok = !h.stale && h.epoch == t.epoch && lease.Stamp(h.clock)-h.lastOK < h.limit()
	if covered {
		ok = ok && h.written >= h.since[t.mode]
	}
	return ok, h.written
}

// remaining is how long a lock taken in t's epoch stays bound to a live
// census entry if no heartbeat succeeds from now on: the time left of the
// heartbeat's window, 0 once the epoch ended or the window passed (as
// trusted judges).
func (h *heartbeat) remaining(t ticket) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stale || h.epoch != t.epoch {
		return 0
	}
	return max(time.Duration(h.lastOK+h.limit()-lease.Stamp(h.clock))*time.Microsecond, 0)
}

// staleError explains why the process may not take locks now.
func (h *heartbeat) staleError(cause error) error {
	h.mu.Lock()
	ago, hasOK := time.Duration(lease.Stamp(h.clock)-h.lastOK)*time.Microsecond, h.everOK
	h.mu.Unlock()
	msg := "no census heartbeat has succeeded yet"
	if hasOK {
		msg = fmt.Sprintf("last successful census heartbeat was sent %v ago (limit %v)", ago, h.window)
	}
	err := fmt.Errorf("%w: process %s: %s; the phase controller might not see this process, so no lock is taken: %s",
		ErrStaleCensus, h.self.Process, msg, staleCensusFix(h.table))
	if cause != nil {
		return fmt.Errorf("%w: %w", err, cause)
	}
	return err
}

// snapshot returns the entry as it stands; the caller holds h.mu.
func (h *heartbeat) snapshot() census.Entry {
	e := h.self
	e.Configured = h.configured
	e.Held, e.Acquiring = map[lockstep.Mode]int{}, map[lockstep.Mode]int{}
	for m := lockstep.ModeLegacy; m <= lockstep.ModeNew; m++ {
		if h.held[m] > 0 {
			e.Held[m] = h.held[m]
		}
		if h.acquiring[m] > 0 {
			e.Acquiring[m] = h.acquiring[m]
		}
	}
	return e
}

// write publishes the current state. The snapshot and its timestamp are
// taken together, so a later timestamp always carries a later state; a write
// that completes after a newer one did is not recorded (it lost in the store
// too). ctx bounds the write; a failed write may still have been applied,
// which is harmless: it carried the truth as of its snapshot.
func (h *heartbeat) write(ctx context.Context) error {
	h.mu.Lock()
	e, v := h.snapshot(), h.version
	sent, ts := lease.Stamp(h.clock), h.ts.Next()
	e.Time = time.UnixMicro(h.clock.Now())
	h.dirty, h.lastStart = false, sent
	h.mu.Unlock()
	cell, err := e.Cell(ts, h.ttl)
	if err != nil {
		return fmt.Errorf("migration: %w", err)
	}
	if err := h.store.Put(ctx, h.table, census.Row, cell); err != nil {
		return fmt.Errorf("migration: writing census entry: %w", err)
	}
	h.mu.Lock()
	if ts < h.lastTS {
		h.mu.Unlock()
		return nil
	}
	ended := !h.stale && sent-h.lastOK >= h.limit()
	if ended {
		h.endEpochLocked() // a gap: the entry may have expired meanwhile
	}
	if h.stale {
		h.stale, h.epoch = false, h.epoch+1
	}
	h.lastOK, h.written, h.lastTS, h.everOK = sent, v, ts, true
	h.mu.Unlock()
	if ended {
		h.warnStale()
	}
	return nil
}

func (h *heartbeat) endEpochLocked() {
	h.stale = true
	for loss := range h.losses {
		loss.Fire()
	}
	clear(h.losses)
}

// bind makes loss, of a lock taken in t's epoch, fire when that epoch ends
// (at once if it has), and adds the heartbeat's deadline to its checks, so
// that Lost sees a lapsed heartbeat before the watchdog has run.
func (h *heartbeat) bind(t ticket, loss *held.Loss) {
	loss.Watch(func() time.Duration { return h.remaining(t) })
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stale || h.epoch != t.epoch {
		loss.Fire()
		return
	}
	if h.losses == nil {
		h.losses = make(map[*held.Loss]struct{})
	}
	h.losses[loss] = struct{}{}
}

// unbind forgets loss, of a lock being released.
func (h *heartbeat) unbind(loss *held.Loss) {
	h.mu.Lock()
	delete(h.losses, loss)
	h.mu.Unlock()
}

func (h *heartbeat) warnStale() {
	h.logger.Warn("migration: census heartbeat stale; locks taken before are signalled lost", "process", h.self.Process)
}

// start runs the heartbeat loop and the staleness watch until shutdown.
func (h *heartbeat) start() {
	ctx, cancel := context.WithCancel(context.Background())
	h.stop = cancel
	h.wg.Add(2)
	lifecycle.Go(h.clock, func() { h.loop(ctx) })
	lifecycle.Go(h.clock, func() { h.watch(ctx) })
}

// shutdown stops both goroutines and waits for them.
func (h *heartbeat) shutdown() {
	h.stop()
	h.wg.Wait()
}

// loop re-reads the flag and writes the entry every half window (a quarter
// after a failure, so a failed write still leaves retries before the window
// ends), and soon after the shape changes (configured mode, held modes,
// modes in use), but at most once per TTL/30 for that reason.
func (h *heartbeat) loop(ctx context.Context) {
	defer h.wg.Done()
	for {
		if m, err := h.flag.Mode(ctx); err == nil {
			h.setConfigured(m)
		} else if ctx.Err() == nil {
			h.logger.Warn("migration: reading mode flag for census", "process", h.self.Process, "err", err)
		}
		delay := h.window / 2
		if err := h.write(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			h.logger.Warn("migration: census heartbeat failed", "process", h.self.Process, "err", err)
			delay = h.window / 4
		}
		if err := h.idle(ctx, delay); err != nil {
			return
		}
	}
}

// idle waits until delay after the last write, or until TTL/30 after it once
// the entry is dirty; it returns ctx.Err() when ctx ends.
func (h *heartbeat) idle(ctx context.Context, delay time.Duration) error {
	for {
		sctx, wake := context.WithCancel(ctx)
		h.mu.Lock()
		until := h.lastStart + delay.Microseconds()
		if h.dirty {
			until = min(until, h.lastStart+(h.ttl/30).Microseconds())
		}
		h.wake = wake
		h.mu.Unlock()
		now := lease.Stamp(h.clock)
		if now >= until {
			wake()
			return ctx.Err()
		}
		err := h.clock.Sleep(sctx, time.Duration(until-now)*time.Microsecond)
		woken := sctx.Err() != nil
		wake()
		if err := ctx.Err(); err != nil {
			return err
		}
		if err != nil && !woken {
			// The clock failed to sleep on its own (a simulator's crashed
			// process): stop, as every other loop of the library does,
			// rather than spin.
			return err
		}
	}
}

// watch ends the epoch once a window has passed since the last successful write
// was sent. It runs apart from loop so that a hanging write cannot delay it.
func (h *heartbeat) watch(ctx context.Context) {
	defer h.wg.Done()
	for {
		h.mu.Lock()
		wait, ended := h.window/4, false
		if !h.stale {
			now, deadline := lease.Stamp(h.clock), h.lastOK+h.limit()
			if now >= deadline {
				h.endEpochLocked()
				ended = true
			} else {
				wait = time.Duration(deadline-now) * time.Microsecond
			}
		}
		h.mu.Unlock()
		if ended {
			h.warnStale()
		}
		if err := h.clock.Sleep(ctx, wait); err != nil {
			return
		}
	}
}

// remove deletes the entry, after shutdown. ctx bounds the delete; on error
// the entry expires after its TTL.
func (h *heartbeat) remove(ctx context.Context) error {
	if err := h.store.Delete(ctx, h.table, census.Row, h.ts.Next(), h.self.Process); err != nil {
		return fmt.Errorf("migration: removing census entry: %w", err)
	}
	return nil
}

// staleCensusFix says what to do about a stale census heartbeat.
func staleCensusFix(table string) string {
	return "check that this process reaches the store and may write table " + table +
		" (the Logger's census warnings name the error); locks are taken again once a heartbeat succeeds"
}
