package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
)

// register is the shared resource of the rmw scenario: per key, a value
// (a counter: each download–modify–upload adds one) and its version.
type register interface {
	// read returns the key's value and version (0, 0 before any write).
	read(ctx context.Context, key string) (value, version int64, err error)
	// write stores value at version unconditionally: the pessimistic
	// strategies' upload, made while holding the key's lock.
	write(ctx context.Context, key string, value, version int64) error
	// cas stores value at version+1 if the key is still at version, and
	// reports whether it did: the optimistic strategy's upload. An error
	// wrapping lockstep.ErrUnknownOutcome means it may have been applied.
	cas(ctx context.Context, key string, version, value int64) (bool, error)
}

// rmwTable is the real backend's resource table, in the bench keyspace.
const rmwTable = "rmw_resource"

// simRegister is the resource on virtual time: a map whose every request
// takes a latency drawn from [minLat, maxLat] (as the model store's
// requests do) and a compare-and-set casCost of them, applied at the middle
// of the request's time.
type simRegister struct {
	clk            lockstep.Clock
	minLat, maxLat time.Duration
	casCost        int

	mu     sync.Mutex
	rnd    *rand.Rand
	values map[string][2]int64 // value, version
}

func newSimRegister(clk lockstep.Clock, minLat, maxLat time.Duration, casCost int, seed uint64) *simRegister {
	return &simRegister{clk: clk, minLat: minLat, maxLat: maxLat, casCost: casCost,
		rnd: rand.New(rand.NewPCG(seed, 11)), values: map[string][2]int64{}}
}

// latency draws one request's latency.
func (r *simRegister) latency() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.minLat + time.Duration(r.rnd.Int64N(int64(r.maxLat-r.minLat)+1))
}

// request spends n latencies of virtual time, running op half way through.
func (r *simRegister) request(ctx context.Context, n int, op func()) error {
	var d time.Duration
	for range n {
		d += r.latency()
	}
	if err := r.clk.Sleep(ctx, d/2); err != nil {
		return err
	}
	r.mu.Lock()
	op()
	r.mu.Unlock()
	return r.clk.Sleep(ctx, d-d/2)
}

func (r *simRegister) read(ctx context.Context, key string) (value, version int64, err error) {
	err = r.request(ctx, 1, func() { value, version = r.values[key][0], r.values[key][1] })
	return value, version, err
}

func (r *simRegister) write(ctx context.Context, key string, value, version int64) error {
	return r.request(ctx, 1, func() { r.values[key] = [2]int64{value, version} })
}

func (r *simRegister) cas(ctx context.Context, key string, version, value int64) (ok bool, err error) {
	err = r.request(ctx, r.casCost, func() {
		if ok = r.values[key][1] == version; ok {
			r.values[key] = [2]int64{value, version + 1}
		}
	})
	return ok, err
}

// cqlRegister is the resource on a real cluster: a row per key of
// rmwTable. Plain reads and writes at the session's consistency (QUORUM);
// the compare-and-set is a lightweight transaction (Paxos), and the row is
// created with one (IF NOT EXISTS) so that every write to it is serial
// (Cassandra's documentation warns against mixing LWT and plain writes on
// one row: the optimistic cells use only LWTs, the pessimistic only plain
// writes, each cell on keys of its own).
type cqlRegister struct {
	s        *gocql.Session
	keyspace string
}

// The read and the plain write are idempotent (the write sets the value
// and version its caller read under the lock it still holds), so a timed
// out one is sent again, up to cqlAttempts times in all.
func (r *cqlRegister) read(ctx context.Context, key string) (value, version int64, err error) {
	err = retryTimeouts(func() error {
		q := r.s.Query(fmt.Sprintf("SELECT value, version FROM %s.%s WHERE key = ?", r.keyspace, rmwTable), key).WithContext(ctx)
		if err := q.Scan(&value, &version); err != gocql.ErrNotFound {
			return err
		}
		value, version = 0, 0
		return nil
	})
	return value, version, err
}

func (r *cqlRegister) write(ctx context.Context, key string, value, version int64) error {
	return retryTimeouts(func() error {
		return r.s.Query(fmt.Sprintf("UPDATE %s.%s SET value = ?, version = ? WHERE key = ?", r.keyspace, rmwTable),
			value, version, key).WithContext(ctx).Exec()
	})
}

// cqlAttempts bounds the attempts of an idempotent request that times out.
const cqlAttempts = 3

// retryTimeouts runs req until it does not time out, at most cqlAttempts
// times, and returns its last error.
func retryTimeouts(req func() error) error {
	var err error
	for range cqlAttempts {
		if err = req(); !isTimeout(err) {
			return err
		}
	}
	return err
}

// isTimeout reports whether err is a request that got no answer in time:
// the coordinator's read or write timeout (a lightweight transaction's
// included) or the driver's own.
func isTimeout(err error) bool {
	var (
		rt *gocql.RequestErrReadTimeout
		wt *gocql.RequestErrWriteTimeout
		cu *gocql.RequestErrCASWriteUnknown
	)
	return errors.As(err, &rt) || errors.As(err, &wt) || errors.As(err, &cu) || errors.Is(err, gocql.ErrTimeoutNoResponse)
}

func (r *cqlRegister) cas(ctx context.Context, key string, version, value int64) (bool, error) {
	var q *gocql.Query
	if version == 0 {
		q = r.s.Query(fmt.Sprintf("INSERT INTO %s.%s (key, value, version) VALUES (?, ?, 1) IF NOT EXISTS", r.keyspace, rmwTable),
			key, value)
	} else {
		q = r.s.Query(fmt.Sprintf("UPDATE %s.%s SET value = ?, version = ? WHERE key = ? IF version = ?", r.keyspace, rmwTable),
			value, version+1, key, version)
	}
	applied, err := q.WithContext(ctx).MapScanCAS(map[string]any{})
	if isTimeout(err) {
		// a lightweight transaction that timed out may yet be applied
		return false, fmt.Errorf("compare-and-set of %s at version %d: %w: %w", key, version, lockstep.ErrUnknownOutcome, err)
	}
	return applied, err
}

// createRMWTable creates the real backend's resource table.
func createRMWTable(ctx context.Context, s *gocql.Session, keyspace string) error {
	stmt := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s (key text PRIMARY KEY, value bigint, version bigint)", keyspace, rmwTable)
	if err := s.Query(stmt).WithContext(ctx).Exec(); err != nil {
		return fmt.Errorf("creating the rmw scenario's table: %w", err)
	}
	return s.AwaitSchemaAgreement(ctx)
}
