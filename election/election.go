package election

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"
)

// recordColumn is the one column of a leader record's partition.
const recordColumn = "leader"

// recordFormat is the first byte of a record's value, before the
// candidate's value: the format's version, and a value that is never empty
// (a store may keep an empty value as null, which has no write timestamp).
const recordFormat = 1

// Election is one election: the candidates of one lock id. Build one per
// process and id with New. Safe for concurrent use; it holds no goroutine of
// its own (a Leadership and Observe start theirs).
type Election struct {
	lk    lockstep.Locker
	store lockstep.Store
	id    string
	row   string // the leader record's partition
	cfg   config
}

// Leader is who leads, as the leader record says.
type Leader struct {
	// Value is what the leader passed to Campaign: its address, say.
	Value string
	// Term is the leader's fencing token, which strictly increases across
	// successive leaders.
	Term int64
}

// New returns the election of lock id, campaigning through lk, whose locks
// must be lockstep.Fenced (build it with fencing), and keeping the leader
// record in store, the store lk runs on. A process that only watches (Leader,
// Observe) passes a nil lk; its Campaign fails. opts may be nil. Invalid arguments
// return an error wrapping lockstep.ErrInvalidConfig or
// lockstep.ErrInvalidID that says what to change.
func New(lk lockstep.Locker, store lockstep.Store, id string, opts *Options) (*Election, error) {
	if store == nil {
		return nil, &lockstep.ConfigError{Field: "Store", Reason: "nil: pass the store the Locker runs on (cassandra.New, or model.New in tests)"}
	}
	if err := lockstep.ValidateID(id); err != nil {
		return nil, fmt.Errorf("election: %w", err)
	}
	cfg, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	return &Election{lk: lk, store: store, id: id, row: id + "\x00" + recordColumn, cfg: cfg}, nil
}

// ID returns the election's lock id.
func (e *Election) ID() string { return e.id }

// Campaign blocks until this caller leads or ctx ends: it takes the lock
// (waiting in line behind earlier candidates), then writes the leader record
// with value, and returns the Leadership. When ctx ends first it returns an
// error for which errors.Is(err, ctx.Err()) holds, having left no cell of
// its own behind (beyond what expires after its TTL if the cleanup fails).
// If the lease is lost before the record is written, it releases the lock
// and returns an error wrapping lockstep.ErrLost: campaign again. A Locker
// whose locks carry no fencing token makes it fail with an error wrapping
// lockstep.ErrInvalidConfig. value is at most MaxValueLen bytes.
func (e *Election) Campaign(ctx context.Context, value string) (*Leadership, error) {
	if len(value) > MaxValueLen {
		return nil, &lockstep.ConfigError{Field: "value", Reason: fmt.Sprintf("%d bytes, above MaxValueLen (%d): publish a reference (an address, a key) instead", len(value), MaxValueLen)}
	}
	if e.lk == nil {
		return nil, &lockstep.ConfigError{Field: "Locker", Reason: "nil: this Election only observes; to campaign, pass New a fenced Locker (queuelock.New with Options.Fencing)"}
	}
	l, err := e.lk.Lock(ctx, e.id)
	if err != nil {
		return nil, fmt.Errorf("election %q: campaign: %w", e.id, err)
	}
	f, ok := l.(lockstep.Fenced)
	if !ok || f.Token() <= 0 {
		err := &lockstep.ConfigError{Field: "Locker", Reason: "its locks carry no fencing token, which is the term: build it with fencing (queuelock.Options.Fencing = clock.NewGlobal(...))"}
		return nil, errors.Join(err, l.Unlock(context.WithoutCancel(ctx)))
	}
	ld := newLeadership(e, l, f.Token(), value)
	if err := ld.publish(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("election %q: campaign: writing the leader record: %w", e.id, err), ld.Resign(context.WithoutCancel(ctx)))
	}
	if lost(l) {
		// The lease lapsed while the record was written: a successor may
		// lead already, so this caller must not start.
		return nil, errors.Join(fmt.Errorf("election %q: campaign: %w before the leader record was written", e.id, lockstep.ErrLost), ld.Resign(context.WithoutCancel(ctx)))
	}
	ld.startRefresh()
	return ld, nil
}

// Leader returns who leads now, as the leader record says; ok is false when
// there is no record (nobody has led, the last leader resigned, or its
// record expired). It works for any process, candidate or not: one store
// read. A crashed leader is reported until its record expires or its
// successor writes its own (the package documentation says why).
func (e *Election) Leader(ctx context.Context) (ld Leader, ok bool, err error) {
	cells, err := e.store.Read(ctx, e.cfg.table, e.row, lockstep.Slice{From: recordColumn, To: recordColumn + "\x00", Limit: 1})
	if err != nil {
		return Leader{}, false, fmt.Errorf("election %q: reading the leader record: %w", e.id, err)
	}
	if len(cells) == 0 {
		return Leader{}, false, nil
	}
	v := cells[0].Value
	if len(v) == 0 || v[0] != recordFormat {
		return Leader{}, false, fmt.Errorf("election %q: the leader record in table %s is not one this package writes (format byte %v): "+
			"another writer shares its partition; give the election a table of its own (Options.Table)", e.id, e.cfg.table, v[:min(len(v), 1)])
	}
	return Leader{Value: string(v[1:]), Term: cells[0].Timestamp}, true, nil
}

// putRecord writes the leader record of term with value.
func (e *Election) putRecord(ctx context.Context, term int64, value string) error {
	v := append([]byte{recordFormat}, value...)
	return e.store.Put(ctx, e.cfg.table, e.row, lockstep.Cell{Column: recordColumn, Value: v, Timestamp: term, TTL: e.cfg.ttl})
}

// deleteRecord deletes the leader record of term and nothing newer: the
// tombstone's timestamp is the term, so a successor's record survives it.
func (e *Election) deleteRecord(ctx context.Context, term int64) error {
	return e.store.Delete(ctx, e.cfg.table, e.row, term, recordColumn)
}
