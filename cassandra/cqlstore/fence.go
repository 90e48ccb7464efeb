package cqlstore

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/lockstep-go/lockstep"
)

// FenceDriver sends the statements of a Fence through one driver's session.
type FenceDriver interface {
	// CAS runs one lightweight transaction at the fence's serial
	// consistency (its commit phase at the matching commit level), not
	// marked idempotent so the driver never retries it, and reports
	// whether it applied. When it did not, row holds the columns Cassandra
	// returned (fence_token among them if the row exists).
	CAS(ctx context.Context, stmt string, args []any, row map[string]any) (applied bool, err error)
	// Load reads one row at the fence's serial consistency into token and
	// value; found is false, with a nil error, if there is no row.
	Load(ctx context.Context, stmt, key string, token *int64, value *[]byte) (found bool, err error)
}

// Fence is the storage of package fence over a FenceDriver: per key of a
// table, the value last committed and its fencing token, written only by
// lightweight transactions. Safe for concurrent use.
type Fence struct {
	driver FenceDriver
	errs   Errors
	stmts  cache[FenceStatements]
}

// NewFence returns a Fence on the tables of keyspace. d runs the
// transactions at serial and their commit phase at commit, which it gets
// from CommitLevel(serial). An unsafe keyspace name or a serial level other
// than SERIAL and LOCAL_SERIAL gives an error wrapping
// lockstep.ErrInvalidConfig.
func NewFence(newDriver func(serial, commit Level) FenceDriver, errs Errors, keyspace string, serial Level) (*Fence, error) {
	if err := lockstep.ValidateName("keyspace", keyspace); err != nil {
		return nil, err
	}
	commit, err := CommitLevel(serial)
	if err != nil {
		return nil, err
	}
	return &Fence{driver: newDriver(serial, commit), errs: errs, stmts: cache[FenceStatements]{keyspace: keyspace, build: newFenceStatements}}, nil
}

// StatementsFor returns the cached statements of table, validating its name
// the first time it is seen.
func (f *Fence) StatementsFor(table string) (*FenceStatements, error) { return f.stmts.get(table) }

// CommitIfNewer writes value with token to key of table if token is at least
// the stored token, or key holds nothing, and reports whether it did and the
// highest token key holds afterwards. It takes at most three lightweight
// transactions and usually one: the conditional UPDATE (the row exists), the
// INSERT IF NOT EXISTS (it did not), and the UPDATE again if another writer
// inserted first with a token ≤ ours. Rows are never deleted, so once the
// INSERT finds the row the last UPDATE either applies or reports a higher
// token: the loop is bounded. Refusals read the current token from the
// transaction's own result, so it is the token that won, not one read later.
//
// An invalid table name, an empty or non-UTF-8 key, a token ≤ 0 or a ctx
// already done is refused before anything is sent, as a plain error. A
// transaction whose outcome is unknown returns an error wrapping
// lockstep.ErrUnknownOutcome.
func (f *Fence) CommitIfNewer(ctx context.Context, table, key string, token int64, value []byte) (bool, int64, error) {
	st, err := f.StatementsFor(table)
	if err != nil {
		return false, 0, err
	}
	if err := f.checkKey(key); err != nil {
		return false, 0, err
	}
	if token <= 0 {
		return false, 0, fmt.Errorf("%s: fence commit %s: token %d must be positive", f.errs.Name, table, token)
	}
	if err := ctx.Err(); err != nil {
		return false, 0, fmt.Errorf("%s: fence commit %s: %w", f.errs.Name, table, err)
	}
	if value == nil {
		value = []byte{} // a null would be a tombstone; keep empty and nil alike
	}
	update := func() (applied, exists bool, current int64, err error) {
		return f.cas(ctx, st.Update, token, value, key, token)
	}
	applied, exists, current, err := update()
	if err != nil || applied || exists {
		return f.result(table, token, applied, current, err)
	}
	applied, _, current, err = f.cas(ctx, st.Insert, key, token, value)
	if err != nil || applied || current > token {
		return f.result(table, token, applied, current, err)
	}
	applied, _, current, err = update()
	return f.result(table, token, applied, current, err)
}

// cas runs one lightweight transaction and returns whether it applied and,
// when it did not, whether the row exists and its token.
func (f *Fence) cas(ctx context.Context, stmt string, args ...any) (applied, exists bool, current int64, err error) {
	row := map[string]any{}
	applied, err = f.driver.CAS(ctx, stmt, args, row)
	if err != nil {
		return false, false, 0, err
	}
	if t, ok := row["fence_token"].(int64); ok {
		return applied, true, t, nil
	}
	return applied, false, 0, nil
}

// result maps the outcome of the last transaction of a commit.
func (f *Fence) result(table string, token int64, applied bool, current int64, err error) (bool, int64, error) {
	switch {
	case err != nil:
		return false, 0, f.errs.Write("fence commit", table, err)
	case applied:
		return true, token, nil
	}
	return false, current, nil
}

// Load returns the token and value key of table holds (0 and nil if never
// written). An invalid table name or an empty key is refused before anything
// is sent. Errors are plain failures.
func (f *Fence) Load(ctx context.Context, table, key string) (int64, []byte, error) {
	st, err := f.StatementsFor(table)
	if err != nil {
		return 0, nil, err
	}
	if err := f.checkKey(key); err != nil {
		return 0, nil, err
	}
	var (
		token int64
		value []byte
	)
	found, err := f.driver.Load(ctx, st.Load, key, &token, &value)
	switch {
	case err != nil:
		return 0, nil, f.errs.Read(table, err)
	case !found:
		return 0, nil, nil
	}
	if len(value) == 0 {
		value = nil
	}
	return token, value, nil
}

func (f *Fence) checkKey(key string) error {
	if key == "" || !utf8.ValidString(key) {
		return fmt.Errorf("%s: fence: key %q must be non-empty UTF-8", f.errs.Name, key)
	}
	return nil
}
