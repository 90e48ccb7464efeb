package fence

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"
)

// Register commits values to the keys of one table of fenced values, refusing
// commits whose fencing token is below the highest the key has accepted (see
// the package documentation). A Register is safe for concurrent use; it keeps
// no state of its own beyond its Store and table.
type Register struct {
	store Store
	table string
}

// NewRegister returns a Register over table of store ("" means
// DefaultTable). A nil store or an unsafe table name (lockstep.ValidateName)
// gives an error wrapping lockstep.ErrInvalidConfig. It contacts nothing.
func NewRegister(store Store, table string) (*Register, error) {
	if store == nil {
		return nil, &lockstep.ConfigError{Field: "Store", Reason: "nil fence.Store: pass a cassandra.FenceStore or, in tests, a model.FenceStore"}
	}
	table = cmp.Or(table, DefaultTable)
	if err := lockstep.ValidateName("table", table); err != nil {
		return nil, err
	}
	return &Register{store: store, table: table}, nil
}

// Table returns the table the Register writes.
func (r *Register) Table() string { return r.table }

// Commit writes value to key with the fencing token of lock (see
// CommitToken). A nil lock, or one whose Token is 0 (a Locker built without
// fencing), is refused with an error and nothing is written.
func (r *Register) Commit(ctx context.Context, lock lockstep.Fenced, key string, value []byte) error {
	if lock == nil {
		return fmt.Errorf("fence: commit to %s/%q: nil lock", r.table, key)
	}
	return r.CommitToken(ctx, lock.Token(), key, value)
}

// CommitToken writes value to key with token, in one atomic conditional
// write, if token is at least the highest token key has accepted.
//
// It returns nil when the write was applied. It returns a *StaleTokenError
// (wrapping lockstep.ErrStaleToken) when a newer token has written key: the
// caller's lock passed to another owner, nothing was written and the caller
// must stop. An empty key or a token ≤ 0 gives an error and writes nothing.
// An error wrapping lockstep.ErrUnknownOutcome means the write may or may not
// have been applied (Load tells which); any other error means it was not.
// ctx bounds the request; when it ends the error satisfies
// errors.Is(err, ctx.Err()), and if the request was in flight it also wraps
// lockstep.ErrUnknownOutcome.
func (r *Register) CommitToken(ctx context.Context, token int64, key string, value []byte) error {
	if err := validateCommit(key, token); err != nil {
		return err
	}
	applied, highest, err := r.store.CommitIfNewer(ctx, r.table, key, token, value)
	switch {
	case errors.Is(err, lockstep.ErrUnknownOutcome):
		return fmt.Errorf("fence: commit to %s/%q with token %d: outcome unknown, the value may have been written (Load tells): %w", r.table, key, token, err)
	case err != nil:
		return fmt.Errorf("fence: commit to %s/%q with token %d: nothing written: %w", r.table, key, token, err)
	case applied:
		return nil
	case highest <= token:
		// A Store refuses only in favour of a higher token; anything else
		// is a broken Store, not a stale writer.
		return fmt.Errorf("fence: commit to %s/%q with token %d: store refused it but reports highest token %d", r.table, key, token, highest)
	}
	return &StaleTokenError{Table: r.table, Key: key, Token: token, Current: highest}
}

// Load returns the version key holds: the last committed value and its
// token, or the zero Version if key was never written. It sees every commit
// that completed before it started. An empty key gives an error.
func (r *Register) Load(ctx context.Context, key string) (Version, error) {
	if err := validateKey(key); err != nil {
		return Version{}, err
	}
	token, value, err := r.store.Load(ctx, r.table, key)
	if err != nil {
		return Version{}, fmt.Errorf("fence: load %s/%q: %w", r.table, key, err)
	}
	return Version{Token: token, Value: value}, nil
}

// StaleTokenError is a commit refused because a newer owner of the lock has
// written the key. It wraps lockstep.ErrStaleToken.
type StaleTokenError struct {
	Table, Key string
	Token      int64 // the token the refused commit carried
	Current    int64 // the highest token the key had accepted, above Token
}

func (e *StaleTokenError) Error() string {
	return fmt.Sprintf("fence: commit to %s/%q refused: token %d is stale, the key has accepted token %d from a newer owner: %v",
		e.Table, e.Key, e.Token, e.Current, lockstep.ErrStaleToken)
}

// Unwrap returns lockstep.ErrStaleToken.
func (e *StaleTokenError) Unwrap() error { return lockstep.ErrStaleToken }
