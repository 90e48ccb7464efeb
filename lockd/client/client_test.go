package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd/client"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

func open(t *testing.T, url string, o *client.Options) *client.Session {
	t.Helper()
	s, err := client.Open(t.Context(), url, o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// A Session is a lockstep.GroupLocker: locks exclude across sessions,
// carry increasing fencing tokens, and errors are the library's.
func TestSession_IsALocker(t *testing.T) {
	srv := newServer(t, nil)
	ctx := t.Context()
	a, b := open(t, srv.url, nil), open(t, srv.url, &client.Options{Name: "b", TTL: 5 * time.Second})
	require.Equal(t, 5*time.Second, b.TTL())

	var lk lockstep.Locker = a
	l, err := lk.Lock(ctx, "invoice-42")
	require.NoError(t, err)
	require.Equal(t, "invoice-42", l.ID())
	require.Equal(t, lockstep.ModeUnknown, l.Mode())
	require.Contains(t, l.Owner(), a.ID()+"/")
	_, err = b.TryLock(ctx, "invoice-42")
	require.ErrorIs(t, err, lockstep.ErrLocked)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, pb.LockError_REASON_LOCKED, e.Reason)
	require.NotEmpty(t, e.Message)

	got := make(chan lockstep.Lock, 1)
	go func() {
		l2, err := b.Lock(ctx, "invoice-42")
		if err != nil {
			t.Error(err)
		}
		got <- l2
	}()
	select {
	case <-got:
		t.Fatal("b was granted a lock a holds")
	case <-time.After(300 * time.Millisecond):
	}
	first := l.(lockstep.Fenced).Token()
	require.NoError(t, l.Unlock(ctx))
	require.NoError(t, l.Unlock(ctx), "a second Unlock is a no-op")
	l2 := <-got
	require.Greater(t, l2.(lockstep.Fenced).Token(), first)
	require.NoError(t, l2.Unlock(ctx))

	// Groups, hierarchy and accesses: two readers share, a writer is refused,
	// and a reentrant upgrade is the library's error.
	r1, err := a.LockGroup(ctx, lockstep.Request{ID: "doc/1", Access: lockstep.Shared}, lockstep.Request{ID: "doc/2", Access: lockstep.Shared})
	require.NoError(t, err)
	r2, err := b.TryLockGroup(ctx, lockstep.Request{ID: "doc/1", Access: lockstep.Shared})
	require.NoError(t, err)
	_, err = b.TryLock(ctx, "doc/2")
	require.ErrorIs(t, err, lockstep.ErrUpgrade, "b holds doc in IS: a writer below it would need IX")
	c := open(t, srv.url, nil)
	_, err = c.TryLock(ctx, "doc/2")
	require.ErrorIs(t, err, lockstep.ErrLocked, "a writer meets the readers")
	require.NoError(t, a.UnlockAll(ctx))
	select {
	case <-r1.Lost():
		// UnlockAll released it: its Lost closes too, the handle is spent
	default:
		t.Fatal("a lock UnlockAll released still looks held")
	}
	require.NoError(t, r1.Unlock(ctx), "a lock UnlockAll released unlocks as a no-op")
	require.NoError(t, r2.Unlock(ctx))

	_, err = a.Lock(ctx, "")
	require.ErrorIs(t, err, lockstep.ErrInvalidID, "bad input is the library's error")
	_, err = a.LockGroup(ctx, lockstep.Request{ID: "doc/1", Flags: lockstep.Flat})
	require.ErrorIs(t, err, lockstep.ErrInvalidID, "the flags reach lockd, which reads doc/1 as a path")
	require.ErrorContains(t, err, "drop lockstep.Flat")
	_, err = a.LockGroup(ctx, lockstep.Request{ID: "doc", Flags: 0x10})
	require.ErrorIs(t, err, lockstep.ErrInvalidID, "flags lockd cannot carry")
	require.ErrorContains(t, err, "nothing was sent")
	flat, err := a.LockGroup(ctx, lockstep.Request{ID: "doc", Flags: lockstep.Flat | lockstep.NoMask})
	require.NoError(t, err)
	_, err = b.TryLock(ctx, "doc/1")
	require.ErrorIs(t, err, lockstep.ErrLocked, "a flat holder of doc excludes a path below it")
	again, err := a.LockGroup(ctx, lockstep.Request{ID: "doc", Flags: lockstep.Flat})
	require.NoError(t, err)
	require.True(t, lockstep.IsReentrant(again), "the session's identity held doc: it only counted")
	require.False(t, lockstep.IsReentrant(flat))
	require.NoError(t, again.Unlock(ctx))
	require.NoError(t, flat.Unlock(ctx))
	_, err = a.LockGroup(ctx)
	require.ErrorIs(t, err, lockstep.ErrInvalidID)
}

// A deadlock across two sessions: one Lock fails with the library's
// *DeadlockError, its cycle naming the comments the callers gave.
func TestSession_DeadlockIsTheLibrarysError(t *testing.T) {
	srv := newServer(t, nil)
	ctx := t.Context()
	a, b := open(t, srv.url, nil), open(t, srv.url, nil)
	_, err := a.Lock(ctx, "x")
	require.NoError(t, err)
	_, err = b.Lock(ctx, "y")
	require.NoError(t, err)
	errs := make(chan error, 2)
	go func() { _, err := a.Commented("job a").Lock(ctx, "y"); errs <- err }()
	time.Sleep(300 * time.Millisecond)
	go func() { _, err := b.Commented("job b").Lock(ctx, "x"); errs <- err }()
	err = <-errs
	require.ErrorIs(t, err, lockstep.ErrDeadlock)
	var dl *lockstep.DeadlockError
	require.ErrorAs(t, err, &dl)
	require.Len(t, dl.Cycle, 2)
	require.ElementsMatch(t, []string{"job a", "job b"}, []string{dl.Cycle[0].Comment, dl.Cycle[1].Comment})
	// The victim's session lets go; the other's Lock is granted.
	victim := b
	if dl.Cycle[0].Comment == "job a" {
		victim = a
	}
	require.NoError(t, victim.UnlockAll(ctx))
	require.NoError(t, <-errs)
}

// A comment that is not UTF-8 cannot travel in a protobuf string: Lock
// refuses it before sending, saying so, and nothing is held.
func TestSession_CommentThatIsNotUTF8IsRefused(t *testing.T) {
	srv := newServer(t, nil)
	ctx := t.Context()
	a, b := open(t, srv.url, nil), open(t, srv.url, nil)
	_, err := a.Commented("ok\xff\xfe").Lock(ctx, "x")
	require.Error(t, err)
	require.Contains(t, err.Error(), `lockd client: comment "ok\xff\xfe" is not valid UTF-8`)
	require.Contains(t, err.Error(), "give it as UTF-8")
	l, err := b.TryLock(ctx, "x")
	require.NoError(t, err, "nothing was held")
	require.NoError(t, l.Unlock(ctx))
	l, err = a.Commented("ok").Lock(ctx, "x")
	require.NoError(t, err, "a UTF-8 comment is taken")
	require.NoError(t, l.Unlock(ctx))
}

// Keep-alives cut off: lockd ends the session after its TTL and releases
// its locks; the client's locks are lost by then, and another session is
// granted them.
func TestSession_KeepAlivesCutOffLoseTheLocks(t *testing.T) {
	srv := newServer(t, nil)
	ctx := t.Context()
	a, b := open(t, srv.url, &client.Options{TTL: time.Second}), open(t, srv.url, nil)
	l, err := a.Lock(ctx, "cut")
	require.NoError(t, err)
	time.Sleep(1500 * time.Millisecond) // kept alive past its TTL
	require.NoError(t, a.Err(), "kept alive")
	srv.dropKeepAlive.Store(true)
	d := lostWithin(t, l, 5*time.Second)
	t.Logf("lost %v after the cut (TTL 1s)", d)
	require.ErrorIs(t, a.Err(), lockstep.ErrLost)
	require.ErrorIs(t, a.Err(), client.ErrSessionEnded)
	l2, err := b.Lock(ctx, "cut")
	require.NoError(t, err, "lockd released the lapsed session's lock")
	require.NoError(t, l2.Unlock(ctx))
	err = l.Unlock(ctx)
	require.ErrorIs(t, err, lockstep.ErrLost, "the holder's Unlock says the lock was lost")
	_, err = a.Lock(ctx, "other")
	require.ErrorIs(t, err, client.ErrSessionEnded)
}

// lockd gone at once (its connections dropped): the watch stream breaks
// and every lock is lost at once, well within the TTL.
func TestSession_LockdGoneLosesTheLocksAtOnce(t *testing.T) {
	srv := newServer(t, nil)
	a := open(t, srv.url, &client.Options{TTL: 30 * time.Second})
	l, err := a.Lock(t.Context(), "gone")
	require.NoError(t, err)
	srv.drop()
	d := lostWithin(t, l, 5*time.Second)
	t.Logf("lost %v after lockd went (TTL 30s)", d)
	require.ErrorIs(t, a.Err(), lockstep.ErrLost)
	require.Contains(t, a.Err().Error(), "watch stream broke")
}

// Bearer tokens: a principal's token opens sessions and takes its ids; a
// missing token, and an id outside its prefixes, are refused as
// ErrNotAllowed.
func TestSession_BearerToken(t *testing.T) {
	srv := newServer(t, principals(t))
	ctx := t.Context()
	_, err := client.Open(ctx, srv.url, nil)
	require.ErrorIs(t, err, client.ErrNotAllowed)
	_, err = client.Open(ctx, srv.url, &client.Options{Token: "wrong"})
	require.ErrorIs(t, err, client.ErrNotAllowed)
	s := open(t, srv.url, &client.Options{Token: "tok-billing"})
	l, err := s.Lock(ctx, "billing/7")
	require.NoError(t, err)
	require.NoError(t, l.Unlock(ctx))
	_, err = s.Lock(ctx, "reports/1")
	require.ErrorIs(t, err, client.ErrNotAllowed)
	var e *client.Error
	require.True(t, errors.As(err, &e))
	require.Equal(t, pb.LockError_REASON_NO_PREFIX, e.Reason)
	require.NoError(t, s.Err())
}

func TestOpen_RefusesANegativeTTL(t *testing.T) {
	_, err := client.Open(t.Context(), "http://127.0.0.1:1", &client.Options{TTL: -time.Second})
	require.ErrorContains(t, err, "want a positive TTL")
}
