package fence

import (
	"context"
	"fmt"
	"unicode/utf8"
)

// DefaultTable is the table of fenced values package schema creates.
const DefaultTable = "fenced_resource"

// Version is what a fenced key holds: the value last committed and the token
// it was committed with. The zero Version is a key never written.
type Version struct {
	// Token is the fencing token of the last applied commit; 0 if none.
	Token int64
	// Value is the value of that commit. Nil and empty are the same.
	Value []byte
}

// Store is the storage of fenced values: tables of rows keyed by a string,
// each holding a token and a value. The production implementation is
// cassandra.FenceStore; model.FenceStore is an in-memory one. A Store must be
// safe for concurrent use, and its operations linearizable per key.
type Store interface {
	// CommitIfNewer writes value with token to key of table if and only if
	// token is at least the token stored for key (or key holds nothing),
	// atomically with the comparison. It reports whether the write was
	// applied and the highest token key holds afterwards: token itself when
	// applied, the stored token (above token) when refused.
	//
	// An invalid table name, an empty key or a token ≤ 0 is refused with an
	// error before anything is sent. An error wrapping
	// lockstep.ErrUnknownOutcome means the write may have been applied;
	// any other error means it was not.
	CommitIfNewer(ctx context.Context, table, key string, token int64, value []byte) (applied bool, highest int64, err error)

	// Load returns the token and value key of table holds, 0 and nil if it
	// was never written. It sees every commit that completed before it
	// started. An invalid table name or an empty key is refused with an
	// error.
	Load(ctx context.Context, table, key string) (token int64, value []byte, err error)
}

// validateCommit checks the arguments of a commit as every Store must: a
// non-empty UTF-8 key (Cassandra's text type) and a positive token.
func validateCommit(key string, token int64) error {
	if err := validateKey(key); err != nil {
		return err
	}
	if token <= 0 {
		return fmt.Errorf("fence: token %d is not a fencing token (tokens are positive): take the lock with fencing on (e.g. queuelock.Options.Fencing) and pass its Token", token)
	}
	return nil
}

func validateKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("fence: empty key: name the row of the resource the lock protects")
	case !utf8.ValidString(key):
		return fmt.Errorf("fence: key %q is not valid UTF-8", key)
	}
	return nil
}
