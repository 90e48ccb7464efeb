package deadlock

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	mrand "math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/deref"
	"github.com/lockstep-go/lockstep/internal/setup"
)

// Config is what a Detector needs from its Locker.
type Config struct {
	Store lockstep.Store
	// Clock is the Locker's: it times the waits and stamps the records.
	Clock lockstep.Clock
	// Process is the Locker's process id, shown in reports.
	Process string
	// Detection is the caller's option; New applies its defaults
	// (lockstep.DeadlockDetection.Resolve).
	Detection lockstep.DeadlockDetection
	// Rand draws the Detector's name; nil: crypto/rand. A simulation sets it
	// (the Locker's Options.Rand) so that one seed gives one run.
	Rand *mrand.Rand
	// Knobs plant this package's defects, for the negative controls; zero
	// in production.
	Knobs Knobs
	// MaxServerSkew bounds the Cassandra nodes' clock difference: a record
	// that cannot be deleted has surely expired TTL + 1s + MaxServerSkew
	// after its last write returned. 0 means 1s.
	MaxServerSkew time.Duration
}

// Detector publishes the waits of one Locker's manager and finds the
// cycles they are the victims of. Safe for concurrent use.
type Detector struct {
	store lockstep.Store
	clock lockstep.Clock
	ts    *clock.Timestamps // a record's delete is stamped above each of its writes
	opt   lockstep.DeadlockDetection
	proc  string
	ttl   time.Duration // of a record: whole seconds, at least 3 × Every
	grace time.Duration // after the last write's return until a record has surely expired
	nonce string        // drawn per Detector, so that names never repeat across restarts
	knobs Knobs
	seq   atomic.Uint64

	mu    sync.Mutex
	waits map[any]map[*Wait]struct{} // the published waits, by identity (Retract)
}

// New returns a Detector, or a *lockstep.ConfigError for bad options.
func New(cfg Config) (*Detector, error) {
	if cfg.Store == nil || cfg.Clock == nil {
		return nil, &lockstep.ConfigError{Field: "Deadlock", Reason: "the detector needs the Locker's store and clock"}
	}
	opt, err := cfg.Detection.Resolve()
	if err != nil {
		return nil, err
	}
	// The records of a DC-local store's Lockers name ids of that data
	// centre's locks: they go to a partition of its own (lockstep.Scope.Row),
	// so two data centres' locks of one id never make one node of the graph.
	opt.Partition = lockstep.ScopeOf(cfg.Store).Row(opt.Partition)
	skew := cfg.MaxServerSkew
	if skew <= 0 {
		skew = time.Second
	}
	ttl := max(3*opt.Every, 3*time.Second)
	ttl = (ttl + time.Second - 1).Truncate(time.Second)
	var b [8]byte
	if cfg.Rand != nil {
		binary.BigEndian.PutUint64(b[:], cfg.Rand.Uint64())
	} else if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("lockstep: deadlock detector: drawing its name: %w", err)
	}
	return &Detector{store: cfg.Store, clock: cfg.Clock, ts: clock.NewTimestamps(cfg.Clock), opt: opt, proc: cfg.Process, ttl: ttl,
		grace: ttl + time.Second + skew, nonce: hex.EncodeToString(b[:]), knobs: cfg.Knobs, waits: map[any]map[*Wait]struct{}{}}, nil
}

// name returns a record name no wait has had.
func (d *Detector) name() string {
	return fmt.Sprintf("%s/%s/%d", d.proc, d.nonce, d.seq.Add(1))
}

// read returns every record of the partition; a cell that does not parse
// is not a record and is left out.
func (d *Detector) read(ctx context.Context) ([]Record, error) {
	cells, err := d.store.Read(ctx, d.opt.Table, d.opt.Partition, lockstep.Slice{})
	if err != nil {
		return nil, err
	}
	recs := make([]Record, 0, len(cells))
	for _, c := range cells {
		var r Record
		if !r.decode(c.Value) {
			continue
		}
		r.Name = c.Column
		recs = append(recs, r)
	}
	return recs, nil
}

func (d *Detector) track(w *Wait) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.waits[w.identity]
	if s == nil {
		s = map[*Wait]struct{}{}
		d.waits[w.identity] = s
	}
	s[w] = struct{}{}
}

func (d *Detector) untrack(w *Wait) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.waits[w.identity], w)
	if len(d.waits[w.identity]) == 0 {
		delete(d.waits, w.identity)
	}
}

// Retract is called before identity releases its hold of id while it may
// still wait elsewhere (R2, doc.go): every published record of identity
// listing id is deleted (R1) and will be published again, with what is
// held then, under a new name. The caller's cancellation of ctx does not
// cut the delete short: the release must not come first.
func (d *Detector) Retract(ctx context.Context, identity any, id string) {
	ctx = context.WithoutCancel(ctx)
	d.mu.Lock()
	ws := slices.Collect(maps.Keys(d.waits[identity]))
	d.mu.Unlock()
	for _, w := range ws {
		w.retract(ctx, id)
	}
}

// errWithdrawn is the cause a wait's inner call is cancelled with when it
// is the victim of a cycle.
var errWithdrawn = errors.New("lockstep: withdrawn as the victim of a deadlock")

// ForLocker returns the Detector of a Locker with settings p, resolved
// (setup.Process.Resolve): nil, with no error, when p.Deadlock is nil
// (detection off). r and knobs may be nil.
func ForLocker(store lockstep.Store, p setup.Process, maxServerSkew time.Duration, r *mrand.Rand, knobs *Knobs) (*Detector, error) {
	if p.Deadlock == nil {
		return nil, nil
	}
	cfg := Config{Store: store, Clock: p.Clock, Process: p.ID, Detection: *p.Deadlock, MaxServerSkew: maxServerSkew, Rand: r, Knobs: deref.Of(knobs)}
	return New(cfg)
}
