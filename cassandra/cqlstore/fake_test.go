package cqlstore

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// call is one request a fake driver received.
type call struct {
	stmt string
	args [][]any
}

// fakeDriver records the requests of a Store and answers each with err (for
// writes) or rows (for reads).
type fakeDriver struct {
	calls []call
	err   error
	rows  *fakeRows
}

func (d *fakeDriver) Write(_ context.Context, stmt string, args [][]any) error {
	d.calls = append(d.calls, call{stmt, args})
	return d.err
}

func (d *fakeDriver) WriteEach(_ context.Context, stmts []string, args [][]any) error {
	for i, st := range stmts {
		d.calls = append(d.calls, call{st, [][]any{args[i]}})
	}
	return d.err
}

func (d *fakeDriver) Read(_ context.Context, stmt string, args []any) Rows {
	d.calls = append(d.calls, call{stmt, [][]any{args}})
	if d.rows == nil {
		return &fakeRows{err: d.err}
	}
	return d.rows
}

// fakeRows yields rows of (column, value, writetime, ttl), then err.
type fakeRows struct {
	rows    [][4]any
	next    int
	err     error
	scanErr error
}

func (r *fakeRows) Next() bool {
	r.next++
	return r.next <= len(r.rows)
}

func (r *fakeRows) Scan(dest ...any) error {
	if r.scanErr != nil {
		return r.scanErr
	}
	row := r.rows[r.next-1]
	*dest[0].(*string) = row[0].(string)
	*dest[1].(*[]byte) = row[1].([]byte)
	*dest[2].(*int64) = row[2].(int64)
	*dest[3].(*int) = row[3].(int)
	return nil
}

func (r *fakeRows) Err() error { return r.err }

// codeFrame is a server error frame carrying only a protocol code, as both
// drivers return for codes they have no type for.
type codeFrame int

func (e codeFrame) Code() int     { return int(e) }
func (e codeFrame) Error() string { return "server error frame" }

var errNoAnswer = errors.New("driver: no answer in time")

// testErrors classifies like a driver: errNoAnswer is maybe applied,
// errRefused not applied.
var (
	errRefused = errors.New("driver: no hosts")
	testErrors = Errors{Name: "cqltest", Classify: func(err error) Outcome {
		switch {
		case errors.Is(err, errNoAnswer):
			return MaybeApplied
		case errors.Is(err, errRefused):
			return NotApplied
		}
		return Undecided
	}}
)

func newTestStore(t *testing.T, d Driver) *Store {
	t.Helper()
	s, err := NewStore(d, testErrors, "locks", lockstep.Scope{}, Quorum, Quorum)
	require.NoError(t, err)
	return s
}

func newTestFence(t *testing.T, d FenceDriver) *Fence {
	t.Helper()
	f, err := NewFence(func(serial, commit Level) FenceDriver {
		require.Equal(t, Serial, serial)
		require.Equal(t, Quorum, commit)
		return d
	}, testErrors, "ks", Serial)
	require.NoError(t, err)
	return f
}
