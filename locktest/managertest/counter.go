package managertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// counterID is the id the counter scenarios lock: one level below "files",
// so with Separator "/" every acquisition also takes an intention lock on
// "files", which all of them share.
const counterID = "files/counter"

// pause is how long a client stays inside a critical section between its
// read and its write: long enough for any other client that is wrongly let
// in to run meanwhile.
const pause = time.Millisecond

// record is the shared data a counter scenario protects: two fields that a
// writer sets one after the other. mu only makes each field access atomic
// for the race detector; it is released between the two writes, so it does
// not exclude anything the lock should.
type record struct {
	mu      sync.Mutex
	a, b    int
	writers int // clients inside as writers
	readers int // clients inside as readers
}

func (r *record) enterWriter() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writers++
	if r.writers > 1 || r.readers > 0 {
		return fmt.Errorf("a writer entered beside %d writers and %d readers", r.writers-1, r.readers)
	}
	return nil
}

func (r *record) leaveWriter() {
	r.mu.Lock()
	r.writers--
	r.mu.Unlock()
}

// increment reads a, pauses, writes a+1 to a, pauses, writes it to b.
func (r *record) increment() {
	r.mu.Lock()
	v := r.a
	r.mu.Unlock()
	time.Sleep(pause)
	r.mu.Lock()
	r.a = v + 1
	r.mu.Unlock()
	time.Sleep(pause)
	r.mu.Lock()
	r.b = v + 1
	r.mu.Unlock()
}

// read enters as a reader and returns an error if a writer is inside or
// the two fields differ (a half-done update).
func (r *record) read() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.writers > 0 {
		return fmt.Errorf("a reader entered beside %d writers", r.writers)
	}
	if r.a != r.b {
		return fmt.Errorf("a reader saw a half-done update: a = %d, b = %d", r.a, r.b)
	}
	return nil
}

func (r *record) values() (int, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.a, r.b
}

// writer runs one client's k increments under exclusive locks taken by acq.
func writer(ctx context.Context, l lockstep.GroupLocker, acq acquirer, k int, r *record) error {
	for j := range k {
		h, err := acq(ctx, l, counterID)
		if err != nil {
			return fmt.Errorf("increment %d: acquire: %w", j, err)
		}
		err = r.enterWriter()
		if err == nil {
			r.increment()
		}
		r.leaveWriter()
		if uerr := h.Unlock(ctx); uerr != nil && err == nil {
			err = fmt.Errorf("increment %d: unlock: %w", j, uerr)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// reader takes the counter Shared k times and checks what it sees.
func reader(ctx context.Context, l lockstep.GroupLocker, k int, r *record) error {
	for j := range k {
		h, err := l.LockGroup(ctx, lockstep.Request{ID: counterID, Access: lockstep.Shared})
		if err != nil {
			return fmt.Errorf("read %d: acquire: %w", j, err)
		}
		r.mu.Lock()
		r.readers++
		r.mu.Unlock()
		err = r.read()
		time.Sleep(pause)
		if err == nil {
			err = r.read() // still consistent after the pause: no writer got in
		}
		r.mu.Lock()
		r.readers--
		r.mu.Unlock()
		if uerr := h.Unlock(ctx); uerr != nil && err == nil {
			err = fmt.Errorf("read %d: unlock: %w", j, uerr)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// counter is seed scenario 1: N clients × K increments end at N·K.
func counter(env Env) []testCase {
	var cs []testCase
	for _, n := range env.clients() {
		cs = append(cs, testCase{fmt.Sprintf("N=%d", n), func(t *testing.T, env Env) { runCounter(t, env, n, 0) }})
	}
	return cs
}

// counterWithReaders is scenario 1 with readers taking the counter Shared
// beside the writers.
func counterWithReaders(env Env) []testCase {
	var cs []testCase
	for _, n := range env.clients() {
		if n >= 2 {
			cs = append(cs, testCase{fmt.Sprintf("N=%d", n), func(t *testing.T, env Env) { runCounter(t, env, n-n/2, n/2) }})
		}
	}
	return cs
}

// runCounter runs writers and readers clients, each with its own Locker on
// one store, each K times, and checks the counter ends at writers·K.
func runCounter(t *testing.T, env Env, writers, readers int) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	s := env.NewStore(t)
	k := env.k()
	var (
		r    record
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	for i := range writers + readers {
		l := newLocker(t, env, s, "/")
		wg.Go(func() {
			var err error
			if i < writers {
				err = writer(ctx, l, exclusiveBy(i), k, &r)
			} else {
				err = reader(ctx, l, k, &r)
			}
			if err != nil {
				fail(fmt.Errorf("client %d: %w", i, err))
			}
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	a, b := r.values()
	require.Equal(t, writers*k, a, "counter after %d writers × %d increments", writers, k)
	require.Equal(t, a, b, "the counter's two fields")
}

// sharedIsShared checks that Shared shares and conflicts where the matrix
// says: two Lockers hold one id Shared at once, while an Exclusive TryLock
// (and TryLockGroup) of it fails, and succeeds once both are released. On an
// ExclusiveOnly Locker the second Shared fails instead.
func sharedIsShared(t *testing.T, env Env) {
	ctx := context.Background()
	s := env.NewStore(t)
	a, b, c := newLocker(t, env, s, ""), newLocker(t, env, s, ""), newLocker(t, env, s, "")
	shared := lockstep.Request{ID: "doc", Access: lockstep.Shared}
	ha, err := a.TryLockGroup(ctx, shared)
	require.NoError(t, err, "first Shared")
	hb, err := b.TryLockGroup(ctx, shared)
	if env.ExclusiveOnly {
		require.ErrorIs(t, err, lockstep.ErrLocked, "second Shared beside the first, on a Locker that takes every request exclusively")
		require.NoError(t, ha.Unlock(ctx))
		hb, err = b.TryLockGroup(ctx, shared)
		require.NoError(t, err, "Shared once the first is released")
		_, err = c.TryLock(ctx, "doc")
		require.ErrorIs(t, err, lockstep.ErrLocked, "TryLock while Shared is held")
		require.NoError(t, hb.Unlock(ctx))
		return
	}
	require.NoError(t, err, "second Shared beside the first")
	_, err = c.TryLock(ctx, "doc")
	require.ErrorIs(t, err, lockstep.ErrLocked, "TryLock while two hold Shared")
	_, err = c.TryLockGroup(ctx, lockstep.Request{ID: "doc", Access: lockstep.Exclusive})
	require.ErrorIs(t, err, lockstep.ErrLocked, "Exclusive TryLockGroup while two hold Shared")
	require.NoError(t, ha.Unlock(ctx))
	_, err = c.TryLock(ctx, "doc")
	require.ErrorIs(t, err, lockstep.ErrLocked, "TryLock while one still holds Shared")
	require.NoError(t, hb.Unlock(ctx))
	hc, err := c.TryLock(ctx, "doc")
	require.NoError(t, err, "TryLock once both Shared holders released")
	_, err = a.TryLockGroup(ctx, shared)
	require.ErrorIs(t, err, lockstep.ErrLocked, "Shared TryLockGroup while Exclusive is held")
	require.NoError(t, hc.Unlock(ctx))
}
