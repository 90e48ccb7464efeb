package lockd_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// Per-query flags over lockd (separator "/"), by gRPC and by HTTP/JSON: a
// flat query of a root id and a hierarchical query below it exclude each
// other; a flat query naming a path and a no_mask query naming a mask are
// refused with INVALID_ID, saying what to pass, and hold nothing; an
// exclusive single item with flags is taken as the library's group of one.
func TestFlags_DeclareAndNeverWeakenWhatIsTaken(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	for _, proto := range []string{"grpc", "json"} {
		t.Run(proto, func(t *testing.T) {
			c := f.client(proto, "", nil)
			ctx := context.Background()
			a, b := open(t, c, 0), open(t, c, 0)
			flat := &pb.LockItem{Id: "doc-" + proto, Flat: true, NoMask: true}

			root, err := c.TryLock(ctx, lockReq(a, flat))
			require.NoError(t, err, "a flat query of a root id")
			_, err = c.TryLock(ctx, lockReq(b, item("doc-"+proto+"/page", pb.Access_ACCESS_SHARED)))
			requireRefusal(t, err, connect.CodeFailedPrecondition, pb.LockError_REASON_LOCKED)
			again, err := c.TryLock(ctx, lockReq(a, flat))
			require.NoError(t, err, "the same session again")
			require.True(t, again.Msg.Lock.Reentrant, "only counted")
			require.False(t, root.Msg.Lock.Reentrant)
			_, err = c.UnlockAll(ctx, connect.NewRequest(&pb.UnlockAllRequest{SessionId: a}))
			require.NoError(t, err)

			for _, c2 := range []struct {
				it   *pb.LockItem
				want string
			}{
				{&pb.LockItem{Id: "doc-" + proto + "/page", Flat: true}, "drop lockstep.Flat to lock it as a path"},
				{&pb.LockItem{Id: "doc-" + proto + "/*", Access: pb.Access_ACCESS_SHARED, NoMask: true}, "drop lockstep.NoMask to lock them all"},
			} {
				_, err := c.TryLock(ctx, lockReq(a, c2.it))
				requireRefusal(t, err, connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_ID)
				require.ErrorContains(t, err, c2.want)
				d, err := c.DescribeSession(ctx, connect.NewRequest(&pb.DescribeSessionRequest{SessionId: a}))
				require.NoError(t, err)
				require.Empty(t, d.Msg.Locks, "%v: the refusal holds nothing", c2.it)
			}
		})
	}
}
