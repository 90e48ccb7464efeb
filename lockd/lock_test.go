package lockd_test

import (
	"context"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// Two clients, one on gRPC and one on Connect's JSON, contend for one id: the
// second waits in Lock and gets it once the first unlocks.
func TestLock_SecondClientWaitsThenGetsItAfterUnlock(t *testing.T) {
	w := &losable{entered: make(chan string, 1)}
	f := newFixture(t, fixtureOptions{wrap: func(l lockstep.GroupLocker) lockstep.GroupLocker { w.GroupLocker = l; return w }})
	a, b := f.client("grpc", "", nil), f.client("json", "", nil)
	sa, sb := open(t, a, 0), open(t, b, 0)
	ctx := context.Background()

	la, err := a.Lock(ctx, lockReq(sa, item("invoice-42", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	<-w.entered
	_, err = b.TryLock(ctx, lockReq(sb, item("invoice-42", pb.Access_ACCESS_EXCLUSIVE)))
	requireRefusal(t, err, connect.CodeFailedPrecondition, pb.LockError_REASON_LOCKED)

	got := make(chan *pb.HeldLock, 1)
	go func() {
		res, err := b.Lock(ctx, lockReq(sb, item("invoice-42", pb.Access_ACCESS_EXCLUSIVE)))
		if err != nil {
			t.Error(err)
			close(got)
			return
		}
		got <- res.Msg.Lock
	}()
	<-w.entered // the second client's Lock is in the library, waiting
	select {
	case <-got:
		t.Fatal("the second client got the lock while the first held it")
	default:
	}
	_, err = a.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: sa, LockId: la.Msg.Lock.LockId}))
	require.NoError(t, err)
	lb := <-got
	require.NotNil(t, lb)
	require.NotZero(t, la.Msg.Lock.Token, "a flat id's lock carries a fencing token")
	require.Greater(t, lb.Token, la.Msg.Lock.Token, "fencing tokens grow across owners")
}

// Lock honours the call's deadline: DeadlineExceeded, nothing held.
func TestLock_DeadlineExceededLeavesNothingHeld(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := f.client("connect", "", nil)
	sa, sb := open(t, c, 0), open(t, c, 0)
	ctx := context.Background()
	_, err := c.Lock(ctx, lockReq(sa, item("a", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	dctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = c.Lock(dctx, lockReq(sb, item("a", pb.Access_ACCESS_EXCLUSIVE)))
	require.Equal(t, connect.CodeDeadlineExceeded, connect.CodeOf(err), "%v", err)
	d, err := c.DescribeSession(ctx, connect.NewRequest(&pb.DescribeSessionRequest{SessionId: sb}))
	require.NoError(t, err)
	require.Empty(t, d.Msg.Locks)
}

// A group of (id, access) on hierarchical ids: members of one group, and
// the intention locks on their ancestors, conflict as the matrix says.
func TestLock_GroupAndHierarchy(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := f.client("connect", "", nil)
	sa, sb := open(t, c, 0), open(t, c, 0)
	ctx := context.Background()
	_, err := c.Lock(ctx, lockReq(sa, item("a/b", pb.Access_ACCESS_SHARED), item("a/c", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)

	for _, tc := range []struct {
		it   *pb.LockItem
		free bool
	}{
		{item("a", pb.Access_ACCESS_EXCLUSIVE), false},     // an ancestor of held ids
		{item("a", pb.Access_ACCESS_SHARED), false},        // S on a conflicts with IX from a/c
		{item("a/c/d", pb.Access_ACCESS_SHARED), false},    // a descendant of an X-held id
		{item("a/b", pb.Access_ACCESS_SHARED), true},       // readers share
		{item("a", pb.Access_ACCESS_INTENT_SHARED), true},  // intentions are compatible
		{item("a/b/e", pb.Access_ACCESS_SHARED), true},     // below a reader, reading
		{item("a/b/e", pb.Access_ACCESS_EXCLUSIVE), false}, // below a reader, writing
	} {
		res, err := c.TryLock(ctx, lockReq(sb, tc.it))
		if !tc.free {
			requireRefusal(t, err, connect.CodeFailedPrecondition, pb.LockError_REASON_LOCKED)
			continue
		}
		require.NoError(t, err, "%v", tc.it)
		_, err = c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: sb, LockId: res.Msg.Lock.LockId}))
		require.NoError(t, err)
	}
}

// Locks are reentrant per session: a second Lock of a held id is granted at
// once, and the id is free only after both are unlocked; asking more than is
// held is refused instead of waiting for itself.
func TestLock_ReentrantPerSession(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := f.client("connect", "", nil)
	sa, sb := open(t, c, 0), open(t, c, 0)
	ctx := context.Background()
	first, err := c.Lock(ctx, lockReq(sa, item("job/7", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	second, err := c.Lock(ctx, lockReq(sa, item("job/7", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	require.True(t, second.Msg.Lock.Reentrant)
	require.False(t, first.Msg.Lock.Reentrant)
	require.Equal(t, first.Msg.Lock.Token, second.Msg.Lock.Token)

	unlock := func(s, id string) {
		_, err := c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: s, LockId: id}))
		require.NoError(t, err)
	}
	unlock(sa, second.Msg.Lock.LockId)
	_, err = c.TryLock(ctx, lockReq(sb, item("job/7", pb.Access_ACCESS_EXCLUSIVE)))
	requireRefusal(t, err, connect.CodeFailedPrecondition, pb.LockError_REASON_LOCKED)
	unlock(sa, first.Msg.Lock.LockId)
	other, err := c.TryLock(ctx, lockReq(sb, item("job/7", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	unlock(sb, other.Msg.Lock.LockId)

	_, err = c.Lock(ctx, lockReq(sa, item("job/8", pb.Access_ACCESS_SHARED)))
	require.NoError(t, err)
	_, err = c.Lock(ctx, lockReq(sa, item("job/8", pb.Access_ACCESS_EXCLUSIVE)))
	requireRefusal(t, err, connect.CodeFailedPrecondition, pb.LockError_REASON_UPGRADE)
}

// Bad input is InvalidArgument with a reason; an unknown handle NotFound.
func TestLock_BadInputIsInvalidArgument(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := f.client("connect", "", nil)
	s := open(t, c, 0)
	ctx := context.Background()
	_, err := c.Lock(ctx, lockReq(s))
	requireRefusal(t, err, connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_ARGUMENT)
	_, err = c.Lock(ctx, lockReq(s, item("", pb.Access_ACCESS_EXCLUSIVE)))
	requireRefusal(t, err, connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_ID)
	_, err = c.Lock(ctx, lockReq(s, item("x", pb.Access(9))))
	requireRefusal(t, err, connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_ACCESS)
	_, err = c.Lock(ctx, lockReq("", item("x", pb.Access_ACCESS_EXCLUSIVE)))
	requireRefusal(t, err, connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_ARGUMENT)
	_, err = c.Lock(ctx, lockReq("s-nope", item("x", pb.Access_ACCESS_EXCLUSIVE)))
	requireRefusal(t, err, connect.CodeNotFound, pb.LockError_REASON_UNKNOWN_SESSION)
	_, err = c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: s, LockId: "l-99"}))
	requireRefusal(t, err, connect.CodeNotFound, pb.LockError_REASON_UNKNOWN_LOCK)
	_, err = c.OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{Ttl: durpb(time.Hour)}))
	requireRefusal(t, err, connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_ARGUMENT)
}

// A client that gives up a waiting Lock (cancels the call) leaves no place
// in line behind: once the holder unlocks, a third session's TryLock gets
// the id.
func TestLock_CancelledByTheClientLeavesNothingBehind(t *testing.T) {
	w := &losable{entered: make(chan string, 1)}
	f := newFixture(t, fixtureOptions{wrap: func(l lockstep.GroupLocker) lockstep.GroupLocker { w.GroupLocker = l; return w }})
	c := f.client("grpc", "", nil)
	sa, sb, sc := open(t, c, 0), open(t, c, 0), open(t, c, 0)
	ctx := context.Background()
	held, err := c.Lock(ctx, lockReq(sa, item("c", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	<-w.entered
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := c.Lock(wctx, lockReq(sb, item("c", pb.Access_ACCESS_EXCLUSIVE)))
		done <- err
	}()
	<-w.entered // the waiter's Lock reached the library
	cancel()
	require.Equal(t, connect.CodeCanceled, connect.CodeOf(<-done))
	_, err = c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: sa, LockId: held.Msg.Lock.LockId}))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		res, err := c.TryLock(ctx, lockReq(sc, item("c", pb.Access_ACCESS_EXCLUSIVE)))
		if err != nil {
			return false
		}
		_, err = c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: sc, LockId: res.Msg.Lock.LockId}))
		return err == nil
	}, 15*time.Second, 10*time.Millisecond, "the cancelled waiter left its place in line behind (a place left would last the lock TTL, 30 s)")
	d, err := c.DescribeSession(ctx, connect.NewRequest(&pb.DescribeSessionRequest{SessionId: sb}))
	require.NoError(t, err)
	require.Empty(t, d.Msg.Locks)
}

// A Lock without a deadline waits at most the server's MaxWait: a call keeps
// the mode it started in, so an endless one would hold a phase move back.
func TestLock_WithoutDeadlineWaitsAtMostMaxWait(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{MaxWait: 100 * time.Millisecond}})
	c := f.client("connect", "", nil)
	sa, sb := open(t, c, 0), open(t, c, 0)
	ctx := context.Background()
	_, err := c.Lock(ctx, lockReq(sa, item("m", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	_, err = c.Lock(ctx, lockReq(sb, item("m", pb.Access_ACCESS_EXCLUSIVE)))
	requireRefusal(t, err, connect.CodeDeadlineExceeded, pb.LockError_REASON_DEADLINE)
}

// An Unlock the store fails is Unavailable and leaves the lock held by the
// session, so that the client retries it; the retry releases it.
func TestUnlock_StoreFailureIsUnavailableAndRetryable(t *testing.T) {
	w := &losable{}
	f := newFixture(t, fixtureOptions{wrap: func(l lockstep.GroupLocker) lockstep.GroupLocker { w.GroupLocker = l; return w }})
	c := f.client("grpc", "", nil)
	s := open(t, c, 0)
	ctx := context.Background()
	held, err := c.Lock(ctx, lockReq(s, item("u", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	unlock := connect.NewRequest(&pb.UnlockRequest{SessionId: s, LockId: held.Msg.Lock.LockId})

	w.failUnlock.Store(1)
	_, err = c.Unlock(ctx, unlock)
	requireRefusal(t, err, connect.CodeUnavailable, pb.LockError_REASON_STORE_UNAVAILABLE)
	d, err := c.DescribeSession(ctx, connect.NewRequest(&pb.DescribeSessionRequest{SessionId: s}))
	require.NoError(t, err)
	require.Len(t, d.Msg.Locks, 1, "still held, to retry")

	_, err = c.Unlock(ctx, unlock)
	require.NoError(t, err)
	d, err = c.DescribeSession(ctx, connect.NewRequest(&pb.DescribeSessionRequest{SessionId: s}))
	require.NoError(t, err)
	require.Empty(t, d.Msg.Locks)
}
