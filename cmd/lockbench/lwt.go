package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep/clock"
)

// lwtTTL is the TTL of the LWT baseline's lock rows, the same as the lockstep
// algorithms' default TTL.
const lwtTTL = 30 * time.Second

// lwtMaxFailures is how many failed INSERTs in a row make Lock give up.
const lwtMaxFailures = 10

// lwtLocker is the Cassandra lock a user would write with lightweight
// transactions, the baseline of the peers scenario: one row per lock id
// holding its owner,
//
//	INSERT INTO lwt_lock (id, owner) VALUES (?, ?) IF NOT EXISTS USING TTL 30
//	UPDATE lwt_lock USING TTL 30 SET owner = ? WHERE id = ? IF owner = ?   (renewal, every TTL/3)
//	DELETE FROM lwt_lock WHERE id = ? IF owner = ?
//
// retrying the INSERT every poll while someone else holds the row. Each
// statement is one Paxos round (four round trips between coordinator and
// replicas) but one request from the client. Nothing orders the waiters: whoever's INSERT
// lands first after the DELETE wins. An INSERT whose outcome is unknown (a
// timeout) may have been applied; the next attempt then finds the row owned
// by this very owner and takes it as held.
//
// Safe for concurrent use.
type lwtLocker struct {
	session    *gocql.Session
	keyspace   string
	process    string
	poll       time.Duration
	clock      clock.Local
	next       atomic.Int64 // owner counter
	background atomic.Int64 // renewal statements
}

func newLWTLocker(s *gocql.Session, keyspace, process string, poll time.Duration) *lwtLocker {
	return &lwtLocker{session: s, keyspace: keyspace, process: process, poll: poll}
}

// Lock inserts the row if absent, retrying every poll until it succeeds or
// ctx ends (then it returns an error wrapping ctx.Err()).
func (l *lwtLocker) Lock(ctx context.Context, id string) (unlocker, error) {
	owner := fmt.Sprintf("%s.%d", l.process, l.next.Add(1))
	stmt := fmt.Sprintf("INSERT INTO %s.%s (id, owner) VALUES (?, ?) IF NOT EXISTS USING TTL %d", l.keyspace, lwtTable, int(lwtTTL/time.Second))
	failures := 0
	for {
		if t := tallyOf(ctx); t != nil {
			t.puts.Add(1)
		}
		existing := map[string]any{}
		applied, err := l.session.Query(stmt, id, owner).WithContext(ctx).MapScanCAS(existing)
		switch {
		case err == nil && (applied || existing["owner"] == owner):
			return l.hold(id, owner), nil
		case ctx.Err() != nil:
			return nil, fmt.Errorf("lwt lock %q: %w", id, ctx.Err())
		case err != nil:
			if failures++; failures >= lwtMaxFailures {
				return nil, fmt.Errorf("lwt lock %q: %d failures in a row, the last: %w", id, failures, err)
			}
		default:
			failures = 0
		}
		if err := l.clock.Sleep(ctx, l.poll); err != nil {
			return nil, fmt.Errorf("lwt lock %q: %w", id, err)
		}
	}
}

// hold starts renewing a lock just taken.
func (l *lwtLocker) hold(id, owner string) *lwtHeld {
	ctx, cancel := context.WithCancel(context.Background())
	h := &lwtHeld{l: l, id: id, owner: owner, cancel: cancel}
	h.wg.Go(func() { h.renew(ctx) })
	return h
}

// Close does nothing: every held lock is released by its own Unlock, and
// the session belongs to the caller.
func (l *lwtLocker) Close(context.Context) error { return nil }

func (l *lwtLocker) backgroundRequests() int64 { return l.background.Load() }

// lwtHeld is a held LWT lock.
type lwtHeld struct {
	l      *lwtLocker
	id     string
	owner  string
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// renew extends the row's TTL every TTL/3 while it is still ours.
func (h *lwtHeld) renew(ctx context.Context) {
	stmt := fmt.Sprintf("UPDATE %s.%s USING TTL %d SET owner = ? WHERE id = ? IF owner = ?", h.l.keyspace, lwtTable, int(lwtTTL/time.Second))
	for h.l.clock.Sleep(ctx, lwtTTL/3) == nil {
		h.l.background.Add(1)
		_, _ = h.l.session.Query(stmt, h.owner, h.id, h.owner).WithContext(ctx).MapScanCAS(map[string]any{})
	}
}

// Unlock stops renewal and deletes the row if it is still ours. A DELETE
// whose outcome is unknown (a timeout: on a loaded 3-node cluster a Paxos
// round can miss its deadline) is sent again, up to lwtMaxFailures times in
// all, as a user's release would: it is conditional on the owner, so a
// repeat after an applied one finds the row gone and changes nothing.
func (h *lwtHeld) Unlock(ctx context.Context) error {
	h.cancel()
	h.wg.Wait()
	stmt := fmt.Sprintf("DELETE FROM %s.%s WHERE id = ? IF owner = ?", h.l.keyspace, lwtTable)
	var err error
	for range lwtMaxFailures {
		if t := tallyOf(ctx); t != nil {
			t.deletes.Add(1)
		}
		if _, err = h.l.session.Query(stmt, h.id, h.owner).WithContext(ctx).MapScanCAS(map[string]any{}); err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("lwt unlock %q: %w", h.id, err)
	}
	return nil
}
