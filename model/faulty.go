package model

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockstep-go/lockstep"
)

// ErrInjected is wrapped by every error a Faulty store makes up, so tests can
// tell injected faults from real ones.
var ErrInjected = errors.New("model: injected fault")

// Op is a set of Store operations, for choosing which ones a Faulty store
// disturbs.
type Op uint8

// The operations of lockstep.Store.
const (
	OpPut Op = 1 << iota
	OpDelete
	OpRead
	// OpAll is every operation.
	OpAll = OpPut | OpDelete | OpRead
)

var opNames = map[Op]string{OpPut: "put", OpDelete: "delete", OpRead: "read"}

// String returns the operation's name, e.g. "put".
func (o Op) String() string {
	if n, ok := opNames[o]; ok {
		return n
	}
	return fmt.Sprintf("Op(%#x)", uint8(o))
}

// FaultConfig says how a Faulty store disturbs the operations it wraps.
type FaultConfig struct {
	// FailBefore is the probability, in [0, 1], that an operation fails
	// before reaching the inner store: nothing is applied and the error wraps
	// ErrInjected only. Default 0.
	FailBefore float64
	// FailAfter is the probability, in [0, 1], that an operation that reached
	// the inner store and succeeded there reports failure anyway, as a timeout
	// would: the write is applied (a read's result is dropped) and the error
	// wraps both ErrInjected and lockstep.ErrUnknownOutcome. Default 0.
	FailAfter float64
	// MinLatency and MaxLatency bound a latency, drawn uniformly, added before
	// each disturbed operation through Clock.Sleep, so that it passes in
	// virtual time under a ManualClock. A ctx that ends during it fails the
	// operation with ctx.Err() and nothing applied. Default 0 (none).
	MinLatency, MaxLatency time.Duration
	// Ops selects the operations disturbed; others pass straight through.
	// Default (0): OpAll.
	Ops Op
	// Clock sleeps the latency. Required when MaxLatency > 0.
	Clock lockstep.Clock
	// Rand draws every random choice, for reproducible runs. Default: a PCG
	// seeded with (1, 2). Faulty serializes its use.
	Rand *rand.Rand
}

// FaultStats counts the faults a Faulty store injected.
type FaultStats struct {
	Before int64 // operations failed before reaching the inner store
	After  int64 // operations applied but reported as failed
}

// Faulty wraps any lockstep.Store and injects failures and latency into its
// operations, for tests of every package. Faults can be switched off and on
// at run time (SetEnabled); while off, every call passes straight through.
//
// A Faulty store is safe for concurrent use if the inner store is.
type Faulty struct {
	inner lockstep.Store
	cfg   FaultConfig

	enabled atomic.Bool
	before  atomic.Int64
	after   atomic.Int64

	mu  sync.Mutex // guards rng
	rng *rand.Rand
}

// NewFaulty returns a Faulty store around inner, with faults enabled. It
// returns an error wrapping lockstep.ErrInvalidConfig if cfg is invalid.
func NewFaulty(inner lockstep.Store, cfg FaultConfig) (*Faulty, error) {
	switch {
	case inner == nil:
		return nil, &lockstep.ConfigError{Field: "inner", Reason: "nil store"}
	case cfg.FailBefore < 0 || cfg.FailBefore > 1:
		return nil, &lockstep.ConfigError{Field: "FailBefore", Reason: fmt.Sprintf("probability %v outside [0, 1]", cfg.FailBefore)}
	case cfg.FailAfter < 0 || cfg.FailAfter > 1:
		return nil, &lockstep.ConfigError{Field: "FailAfter", Reason: fmt.Sprintf("probability %v outside [0, 1]", cfg.FailAfter)}
	case cfg.MinLatency < 0 || cfg.MaxLatency < cfg.MinLatency:
		return nil, &lockstep.ConfigError{Field: "MinLatency/MaxLatency", Reason: fmt.Sprintf("want 0 <= min <= max, got %v, %v", cfg.MinLatency, cfg.MaxLatency)}
	case cfg.MaxLatency > 0 && cfg.Clock == nil:
		return nil, &lockstep.ConfigError{Field: "Clock", Reason: "required to add latency"}
	case cfg.Ops&^OpAll != 0:
		return nil, &lockstep.ConfigError{Field: "Ops", Reason: fmt.Sprintf("unknown operations %#x", uint8(cfg.Ops&^OpAll))}
	}
	if cfg.Ops == 0 {
		cfg.Ops = OpAll
	}
	rng := cfg.Rand
	if rng == nil {
		rng = rand.New(rand.NewPCG(1, 2))
	}
	f := &Faulty{inner: inner, cfg: cfg, rng: rng}
	f.enabled.Store(true)
	return f, nil
}

var _ lockstep.Store = (*Faulty)(nil)

// SetEnabled switches fault injection on or off for calls that start after
// it returns.
func (f *Faulty) SetEnabled(on bool) { f.enabled.Store(on) }

// Enabled reports whether fault injection is on.
func (f *Faulty) Enabled() bool { return f.enabled.Load() }

// Stats returns how many faults were injected so far.
func (f *Faulty) Stats() FaultStats {
	return FaultStats{Before: f.before.Load(), After: f.after.Load()}
}

// Scope returns the scope of the store f wraps (lockstep.ScopeOf), so a
// Locker on f keeps its locks in the same rows as one on the store itself.
func (f *Faulty) Scope() lockstep.Scope { return lockstep.ScopeOf(f.inner) }

// Put writes through to the inner store, possibly disturbed.
func (f *Faulty) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	return f.do(ctx, OpPut, func() error { return f.inner.Put(ctx, table, row, cells...) })
}

// Delete deletes through the inner store, possibly disturbed.
func (f *Faulty) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	return f.do(ctx, OpDelete, func() error { return f.inner.Delete(ctx, table, row, ts, columns...) })
}

// PutDelete writes and deletes through the inner store in one request,
// possibly disturbed, if the inner store is a lockstep.Mutator; otherwise
// it fails, writing nothing, with an error wrapping errors.ErrUnsupported
// (as lockstep.Mutator asks of such a wrapper).
func (f *Faulty) PutDelete(ctx context.Context, table, row string, ts int64, columns []string, cells ...lockstep.Cell) error {
	m, ok := f.inner.(lockstep.Mutator)
	if !ok {
		return fmt.Errorf("model: the store under Faulty cannot write and delete in one request (lockstep.Mutator): %w", errors.ErrUnsupported)
	}
	return f.do(ctx, OpPut, func() error { return m.PutDelete(ctx, table, row, ts, columns, cells...) })
}

// Read reads through the inner store, possibly disturbed.
func (f *Faulty) Read(ctx context.Context, table, row string, s lockstep.Slice) ([]lockstep.Cell, error) {
	var out []lockstep.Cell
	err := f.do(ctx, OpRead, func() error {
		var err error
		out, err = f.inner.Read(ctx, table, row, s)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// plan is the fate drawn for one disturbed call.
type plan struct {
	latency       time.Duration
	before, after bool
}

// draw picks one call's fate. All draws happen in one critical section in a
// fixed order, so a seeded Rand gives the same sequence of fates.
func (f *Faulty) draw() plan {
	f.mu.Lock()
	defer f.mu.Unlock()
	var p plan
	if f.cfg.MaxLatency > 0 {
		p.latency = f.cfg.MinLatency
		if span := f.cfg.MaxLatency - f.cfg.MinLatency; span > 0 {
			p.latency += time.Duration(f.rng.Int64N(int64(span) + 1))
		}
	}
	p.before = f.cfg.FailBefore > 0 && f.rng.Float64() < f.cfg.FailBefore
	p.after = f.cfg.FailAfter > 0 && f.rng.Float64() < f.cfg.FailAfter
	return p
}

// do runs call with the fate drawn for op.
func (f *Faulty) do(ctx context.Context, op Op, call func() error) error {
	if !f.enabled.Load() || f.cfg.Ops&op == 0 {
		return call()
	}
	p := f.draw()
	if p.latency > 0 {
		if err := f.cfg.Clock.Sleep(ctx, p.latency); err != nil {
			return err
		}
	}
	if p.before {
		f.before.Add(1)
		return fmt.Errorf("%w: %v failed before reaching the store", ErrInjected, op)
	}
	if err := call(); err != nil {
		return err
	}
	if p.after {
		f.after.Add(1)
		return fmt.Errorf("%w: %v applied but reported as timed out: %w", ErrInjected, op, lockstep.ErrUnknownOutcome)
	}
	return nil
}
