package lockd

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/migration"
)

// Every error of the library maps to its documented code and reason, wrapped
// as the library wraps it, and the wire error carries the LockError detail.
func TestMapError_EveryLibraryErrorHasItsCodeAndReason(t *testing.T) {
	for _, tc := range []struct {
		err    error
		code   connect.Code
		reason pb.LockError_Reason
	}{
		{context.DeadlineExceeded, connect.CodeDeadlineExceeded, pb.LockError_REASON_DEADLINE},
		{context.Canceled, connect.CodeCanceled, pb.LockError_REASON_UNSPECIFIED},
		{lockstep.ErrLocked, connect.CodeFailedPrecondition, pb.LockError_REASON_LOCKED},
		{lockstep.ErrUpgrade, connect.CodeFailedPrecondition, pb.LockError_REASON_UPGRADE},
		{&migration.ModeError{ID: "x", Configured: lockstep.ModeLegacy}, connect.CodeFailedPrecondition, pb.LockError_REASON_INCOMPATIBLE_MODE},
		{lockstep.ErrLost, connect.CodeAborted, pb.LockError_REASON_LOST},
		{lockstep.ErrInvalidID, connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_ID},
		{lockstep.ErrInvalidAccess, connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_ACCESS},
		{lockstep.ErrRefused, connect.CodePermissionDenied, pb.LockError_REASON_STORE_REFUSED},
		{lockstep.ErrClosed, connect.CodeUnavailable, pb.LockError_REASON_SHUTTING_DOWN},
		{migration.ErrStaleCensus, connect.CodeUnavailable, pb.LockError_REASON_STORE_UNAVAILABLE},
		{lockstep.ErrUnknownOutcome, connect.CodeUnavailable, pb.LockError_REASON_STORE_UNAVAILABLE},
		{errors.New("cassandra: no hosts available"), connect.CodeUnavailable, pb.LockError_REASON_STORE_UNAVAILABLE},
	} {
		wrapped := fmt.Errorf("queuelock: %q: %w", "x", tc.err)
		e := mapError(wrapped, "s-1", "x")
		require.Equal(t, tc.code, e.code, "%v", tc.err)
		require.Equal(t, tc.reason, e.reason, "%v", tc.err)
		require.ErrorIs(t, e, tc.err, "the library's error stays reachable")

		var ce *connect.Error
		require.ErrorAs(t, wire(wrapped), &ce)
		require.Equal(t, tc.code, ce.Code())
		require.Len(t, ce.Details(), 1)
		v, err := ce.Details()[0].Value()
		require.NoError(t, err)
		require.Equal(t, tc.reason, v.(*pb.LockError).Reason)
	}
}

// A deadlock cycle whose comment is not UTF-8 (a Go process's, kept byte
// for byte by the library) still reaches the client: the detail carries it
// with each invalid byte replaced by U+FFFD, as a protobuf string must be
// UTF-8.
func TestMapError_ACommentThatIsNotUTF8StillReachesTheClient(t *testing.T) {
	dl := &lockstep.DeadlockError{Cycle: []lockstep.DeadlockMember{
		{Process: "p1", Waits: lockstep.Request{ID: "b"}, HeldBy: "o2", Comment: "ok\xff\xfe"},
		{Process: "p2", Waits: lockstep.Request{ID: "a"}, HeldBy: "o1", Comment: "fine"},
	}}
	var ce *connect.Error
	require.ErrorAs(t, wire(fmt.Errorf("lock: %w", dl)), &ce)
	require.Len(t, ce.Details(), 1)
	v, err := ce.Details()[0].Value()
	require.NoError(t, err)
	cycle := v.(*pb.LockError).GetCycle()
	require.Len(t, cycle, 2)
	require.Equal(t, "ok\uFFFD\uFFFD", cycle[0].GetComment())
	require.Equal(t, "fine", cycle[1].GetComment())
}

// A Lock that fails with ErrLost is advised to unlock the session's lost
// lock and Lock again, not told that an Unlock released it.
func TestLockError_ALossAdvisesUnlockingTheLostLock(t *testing.T) {
	e := lockError(fmt.Errorf("lockstep: lock r:X: the earlier Lock was lost: %w", lockstep.ErrLost), "s-1", "", []string{"l-1"})
	require.Equal(t, connect.CodeAborted, e.code)
	require.Equal(t, pb.LockError_REASON_LOST, e.reason)
	require.ErrorIs(t, e, lockstep.ErrLost)
	require.Contains(t, e.hint, "Unlock the session's lost lock on the id if it has one")
	require.Equal(t, []string{"l-1"}, e.lost, "the session's lost locks")
	require.Contains(t, e.msg, "lockstep: lock r:X: the earlier Lock was lost: ")
	require.NotContains(t, e.msg, "before this Unlock")
	require.Equal(t, mapError(lockstep.ErrLocked, "s-1", ""), lockError(lockstep.ErrLocked, "s-1", "", []string{"l-1"}), "other errors map as before")
}
