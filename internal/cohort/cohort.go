package cohort

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/deref"
	"github.com/lockstep-go/lockstep/internal/held"
	"github.com/lockstep-go/lockstep/internal/manager"
)

// Options configure an Algorithm.
type Options struct {
	// Bound is how many local handoffs may follow one store acquisition
	// (or one extension) before the store hold is released, or extended
	// when the store shows no waiter of another owner (extend.go): at
	// least 1.
	Bound int
	// Clock is the process's clock: the Since of a local grant, and the
	// simulator's hold on a waiter woken by a handoff (lifecycle.Resumed).
	Clock lockstep.Clock
	// Retain, when above 0, keeps a store hold whose last holder unlocked
	// with nobody in line for up to Retain, renewed, so that an exclusive
	// acquisition of the id in this process meanwhile is granted in
	// memory; it needs a Watcher as the inner algorithm and WatchEvery.
	// Default 0: off.
	Retain time.Duration
	// WatchEvery is how often a retained hold looks at the store for a
	// waiter of another owner (Watcher.Waiting), after a first look when
	// it is retained: the Locker's lease Renew.
	WatchEvery time.Duration
	// TestingKnobs plant this package's defects; nil in production.
	TestingKnobs *TestingKnobs
}

// Algorithm is the local-handoff layer over an inner manager.Algorithm
// (doc.go). Safe for concurrent use.
type Algorithm struct {
	inner    manager.Algorithm
	o        Options
	knobs    TestingKnobs
	watcher  Watcher  // the inner algorithm's, if it offers one: retention and extension
	extender Extender // the inner algorithm's, if it offers one: extension of a fenced hold

	retaining sync.WaitGroup // retention goroutines (retain.go)
	looking   sync.WaitGroup // looks ahead (extend.go)
	// closing ends at Close every retention's context, a look that a
	// re-lock overtook (and so no longer ends) included, and every look
	// ahead's.
	closing    context.Context
	closeLooks context.CancelFunc

	mu    sync.Mutex
	lines map[string]*line // ids with a local exclusive acquisition in progress or held
	// passing counts, per id, the requests in progress that pass through
	// to the inner algorithm (passing.go).
	passing map[string]int
	// lookingNow counts the looks ahead in flight (extend.go), for Close.
	lookingNow int
}

var _ manager.Algorithm = (*Algorithm)(nil)

// New returns the layer over inner. A Bound below 1 or a nil inner or
// Clock is refused with an error wrapping lockstep.ErrInvalidConfig.
func New(inner manager.Algorithm, o Options) (*Algorithm, error) {
	if inner == nil {
		return nil, &lockstep.ConfigError{Field: "inner", Reason: "nil algorithm: pass the Locker's algorithm"}
	}
	if o.Bound < 1 {
		return nil, &lockstep.ConfigError{Field: "LocalHandoff", Reason: fmt.Sprintf(
			"%d local handoffs: want at least 1 (or leave local handoff off)", o.Bound)}
	}
	if o.Clock == nil {
		return nil, &lockstep.ConfigError{Field: "Clock", Reason: "nil clock: pass the Locker's clock"}
	}
	c := &Algorithm{inner: inner, o: o, lines: map[string]*line{}, passing: map[string]int{}}
	c.closing, c.closeLooks = context.WithCancel(context.Background())
	w, ok := inner.(Watcher)
	switch {
	case o.Retain < 0:
		return nil, &lockstep.ConfigError{Field: "Retain", Reason: fmt.Sprintf(
			"%v must not be negative: use 0 for off or how long to keep an unlocked lock for this process, e.g. 20ms", o.Retain)}
	case o.Retain == 0:
	case !ok:
		return nil, &lockstep.ConfigError{Field: "Retain", Reason: "this algorithm cannot see waiters of other processes in the store: leave Retain 0"}
	case o.WatchEvery <= 0:
		return nil, &lockstep.ConfigError{Field: "WatchEvery", Reason: fmt.Sprintf(
			"%v: a retained lock must look for other processes' waiters at a positive period: pass the lease's Renew", o.WatchEvery)}
	}
	if ok {
		c.watcher = w
	}
	c.extender, _ = inner.(Extender)
	c.knobs = deref.Of(o.TestingKnobs)
	return c, nil
}

// Inner returns the algorithm below the layer: for a public package that
// reaches its own core (queuelock's Share, Ready, Scope).
func (c *Algorithm) Inner() manager.Algorithm { return c.inner }

// Take takes a.ID as manager.Algorithm says. An exclusive acquisition
// either takes the id from the inner algorithm or, while another local
// exclusive acquisition of the id is in progress or held, waits behind it
// in this process's line, where it may be handed that acquisition's store
// hold when it is unlocked. Every other access passes straight through. A
// Try acquisition fails at once with an error wrapping lockstep.ErrLocked
// while the line is not empty. When ctx ends first, the error wraps
// ctx.Err() and whatever was handed to the caller meanwhile is passed on
// (to the next in line, or released in the store): nothing is left behind.
func (c *Algorithm) Take(ctx context.Context, a *manager.Acquisition) (held.Spec, error) {
	if a.Access != lockstep.Exclusive {
		c.dropRetained(ctx, a.ID) // it would wait behind the retained hold in the turns
		return c.passThrough(ctx, a)
	}
	c.mu.Lock()
	ln := c.lines[a.ID]
	if ln == nil {
		ln = &line{id: a.ID}
		c.lines[a.ID] = ln
		c.mu.Unlock()
		return c.takeStore(ctx, a, ln)
	}
	if h := c.claimRetained(ln); h != nil {
		c.mu.Unlock()
		return c.grantLocal(ctx, a, h)
	}
	if a.Try {
		a.Mode = ln.mode
		c.mu.Unlock()
		return held.Spec{}, fmt.Errorf("cohort: %q: %w (held or awaited in this process)", a.ID, lockstep.ErrLocked)
	}
	w := &waiter{ready: make(chan struct{})}
	ln.waiters = append(ln.waiters, w)
	c.mu.Unlock()
	h, err := c.await(ctx, ln, w)
	if err != nil {
		return held.Spec{}, fmt.Errorf("cohort: %q: waiting in process: %w", a.ID, err)
	}
	if h == nil { // the store turn: take the id from the inner algorithm
		return c.takeStore(ctx, a, ln)
	}
	return c.grantLocal(ctx, a, h)
}

// takeStore takes the id from the inner algorithm for the line's turn,
// reserving a block of Bound+1 fencing tokens: the store acquisition's and
// one for each grant the hold may make in memory. On error it gives the
// turn to the next in line.
func (c *Algorithm) takeStore(ctx context.Context, a *manager.Acquisition, ln *line) (held.Spec, error) {
	a.TokenBlock = c.o.Bound + 1
	if c.knobs.UnreservedBlock {
		a.TokenBlock = 1 // planted: the cell holds the first token only
	}
	spec, err := c.inner.Take(ctx, a)
	if err != nil {
		c.leave(ln)
		return held.Spec{}, err
	}
	last := spec.TokenLast
	if c.knobs.UnreservedBlock && spec.Token != 0 {
		last = spec.Token + int64(c.o.Bound) // planted: handed out, never reserved
	}
	c.mu.Lock()
	ln.mode = spec.Mode
	c.mu.Unlock()
	h := &hold{ln: ln, spec: spec, token: spec.Token, last: last, crowded: spec.Crowded}
	return c.grant(h, spec.Token, spec.Since), nil
}

// grantLocal makes the caller, handed h, its holder, with no store
// request: its fencing token, when h carries one, is the next of h's
// block (offer hands h on only while one is left), kept only if h's store
// lease is open now — Loss.Fired runs the lease's in-time deadline check,
// so a deadline passed is seen before any goroutine fired the signal. If
// it is not, h is released in the store and the caller, which still has
// the line's turn, takes the id from the inner algorithm, as a queue-lock
// claim whose token could not be kept claims again. A hold handed at the
// bound (hold.due) goes on only if extend allows it, with the first token
// of a fresh block; otherwise it is released in the same way.
func (c *Algorithm) grantLocal(ctx context.Context, a *manager.Acquisition, h *hold) (held.Spec, error) {
	a.Mode, a.Attempts, a.Requests = h.spec.Mode, 0, 0
	if h.spec.Loss.Fired() || h.due && !c.extend(ctx, h) {
		h.stop()
		_, _ = h.release(context.WithoutCancel(ctx), c.o.Clock) // what a failed delete leaves expires after the TTL
		return c.takeStore(ctx, a, h.ln)
	}
	if h.token != 0 && !c.knobs.ReuseToken { // planted ReuseToken: the previous holder's token again
		h.token++
	}
	return c.grant(h, h.token, c.o.Clock.Elapsed()), nil
}

// Close releases every retained store hold, waiting for the deletes, and
// closes the inner algorithm: the manager above released every lock and
// ended every call first, so no other line is left.
func (c *Algorithm) Close(ctx context.Context) error {
	c.dropAll(ctx)
	return c.inner.Close(ctx)
}

// Adopt adopts through the inner algorithm (manager.Adopter): an adopted
// lock is not a local acquisition of this layer, and its Unlock releases
// it in the store.
func (c *Algorithm) Adopt(ctx context.Context, tok string, skip func(id string, a lockstep.Access, owner string) bool) (
	string, []lockstep.Request, bool, []*held.Spec, error) {
	ad, ok := c.inner.(manager.Adopter)
	if !ok {
		return "", nil, false, nil, fmt.Errorf("%w: this Locker cannot adopt a shared lock", lockstep.ErrIncompatibleMode)
	}
	return ad.Adopt(ctx, tok, skip)
}

var _ manager.Adopter = (*Algorithm)(nil)
