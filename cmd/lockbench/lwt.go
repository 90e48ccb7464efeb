package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
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
// holding its owner. It comes in two forms. The strong one (algorithm lwt)
// is what a competent user writes: while the row is held it only reads it
// (a plain QUORUM SELECT, no Paxos round), sends the INSERT only when the
// row looks free, and sleeps a jittered poll (uniform in [poll/2, 3poll/2))
// between tries, so contenders do not send colliding Paxos rounds in step —
// colliding LWTs are what Cassandra delays by up to ~100 ms. The naive one
// (algorithm lwt-naive) retries the INSERT every poll, with no read and no
// jitter. Both use
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
	strong     bool         // read while held, insert when it looks free, jittered polls
	next       atomic.Int64 // owner counter
	background atomic.Int64 // renewal statements
}

// newLWTLocker returns the LWT baseline a names: algoLWT (strong) or
// algoLWTNaive.
func newLWTLocker(a algorithm, s *gocql.Session, keyspace, process string, poll time.Duration) *lwtLocker {
	return &lwtLocker{session: s, keyspace: keyspace, process: process, poll: poll, strong: a == algoLWT}
}

// isLWT reports whether a is one of the LWT baselines.
func isLWT(a algorithm) bool { return a == algoLWT || a == algoLWTNaive }

// pause is the wait between tries: poll, or with the strong form a uniform
// draw from [poll/2, 3poll/2).
func (l *lwtLocker) pause() time.Duration {
	if !l.strong || l.poll <= 0 {
		return l.poll
	}
	return l.poll/2 + rand.N(l.poll)
}

// looksHeld reads id's row, as the strong form does before each INSERT: it
// reports the owner written there, "" when the row is absent.
func (l *lwtLocker) looksHeld(ctx context.Context, id string) (string, error) {
	if t := tallyOf(ctx); t != nil {
		t.reads.Add(1)
	}
	var owner string
	err := l.session.Query(fmt.Sprintf("SELECT owner FROM %s.%s WHERE id = ?", l.keyspace, lwtTable), id).WithContext(ctx).Scan(&owner)
	if errors.Is(err, gocql.ErrNotFound) {
		return "", nil
	}
	return owner, err
}

// Lock inserts the row if absent, retrying every poll until it succeeds or
// ctx ends (then it returns an error wrapping ctx.Err()). The strong form
// reads first and inserts only when the row looks free.
func (l *lwtLocker) Lock(ctx context.Context, id string) (unlocker, error) {
	owner := fmt.Sprintf("%s.%d", l.process, l.next.Add(1))
	stmt := fmt.Sprintf("INSERT INTO %s.%s (id, owner) VALUES (?, ?) IF NOT EXISTS USING TTL %d", l.keyspace, lwtTable, int(lwtTTL/time.Second))
	failures := 0
	for {
		if l.strong {
			held, err := l.looksHeld(ctx, id)
			switch {
			case err == nil && held == owner: // an INSERT whose reply was lost had applied
				return l.hold(id, owner), nil
			case ctx.Err() != nil:
				return nil, fmt.Errorf("lwt lock %q: %w", id, ctx.Err())
			case err != nil:
				if failures++; failures >= lwtMaxFailures {
					return nil, fmt.Errorf("lwt lock %q: %d failures in a row, the last: %w", id, failures, err)
				}
			}
			if err != nil || held != "" {
				if err := l.clock.Sleep(ctx, l.pause()); err != nil {
					return nil, fmt.Errorf("lwt lock %q: %w", id, err)
				}
				continue
			}
		}
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
		if err := l.clock.Sleep(ctx, l.pause()); err != nil {
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
