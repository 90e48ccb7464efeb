package model

import (
	"context"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/lockstep-go/lockstep"
)

// FenceStore is an in-memory store of fenced values with the semantics of
// fence.Store (which it implements without importing package fence): per
// table and key, a token and a value, written only by CommitIfNewer when the
// new token is at least the stored one. It stands in for the lightweight
// transactions of cassandra.FenceStore in tests and examples.
//
// A FenceStore is safe for concurrent use and linearizable: every call holds
// one mutex, so the comparison and the write of a commit are one atomic step.
// The zero value is not usable; call NewFenceStore.
type FenceStore struct {
	mu     sync.Mutex
	tables map[string]map[string]fencedRow
}

type fencedRow struct {
	token int64
	value []byte
}

// NewFenceStore returns an empty FenceStore. Tables are created on first use.
func NewFenceStore() *FenceStore {
	return &FenceStore{tables: make(map[string]map[string]fencedRow)}
}

// CommitIfNewer writes value with token to key of table if token is at least
// the stored token (or key holds nothing) and reports whether it did and the
// highest token key holds afterwards. An invalid table name, an empty or
// non-UTF-8 key or a token ≤ 0 is refused with an error and changes nothing,
// and so does a ctx already done.
func (s *FenceStore) CommitIfNewer(ctx context.Context, table, key string, token int64, value []byte) (bool, int64, error) {
	if err := checkFenced(table, key); err != nil {
		return false, 0, err
	}
	if token <= 0 {
		return false, 0, fmt.Errorf("model: fence commit: token %d must be positive", token)
	}
	if err := ctx.Err(); err != nil {
		return false, 0, fmt.Errorf("model: fence commit %s: %w", table, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rows := s.tables[table]
	if rows == nil {
		rows = make(map[string]fencedRow)
		s.tables[table] = rows
	}
	if cur, ok := rows[key]; ok && cur.token > token {
		return false, cur.token, nil
	}
	rows[key] = fencedRow{token: token, value: append([]byte(nil), value...)}
	return true, token, nil
}

// Load returns the token and value key of table holds, 0 and nil if it was
// never written. The value is a copy, nil when empty. An invalid table name or
// an empty key is refused with an error.
func (s *FenceStore) Load(ctx context.Context, table, key string) (int64, []byte, error) {
	if err := checkFenced(table, key); err != nil {
		return 0, nil, err
	}
	if err := ctx.Err(); err != nil {
		return 0, nil, fmt.Errorf("model: fence load %s: %w", table, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.tables[table][key]
	if !ok {
		return 0, nil, nil
	}
	var v []byte
	if len(cur.value) > 0 {
		v = append([]byte(nil), cur.value...)
	}
	return cur.token, v, nil
}

func checkFenced(table, key string) error {
	if err := lockstep.ValidateName("table", table); err != nil {
		return err
	}
	if key == "" || !utf8.ValidString(key) {
		return fmt.Errorf("model: fence: key %q must be non-empty UTF-8", key)
	}
	return nil
}
