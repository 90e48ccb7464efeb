package lockd_test

import (
	"context"
	"fmt"
	"testing"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// Every (mask access, child access, order) pair over lockd: a mask in IS,
// IX or SIX is refused with INVALID_ID and holds nothing; in S or X the
// second of the two is refused with LOCKED exactly when the accesses are
// incompatible, since the mask names the child.
func TestMask_EveryAccessPairAgainstAChild(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := f.client("grpc", "", nil)
	ctx := context.Background()
	a, b := open(t, c, 0), open(t, c, 0)
	accesses := map[pb.Access]lockstep.Access{
		pb.Access_ACCESS_EXCLUSIVE: lockstep.Exclusive, pb.Access_ACCESS_SHARED: lockstep.Shared,
		pb.Access_ACCESS_INTENT_SHARED: lockstep.IntentShared, pb.Access_ACCESS_INTENT_EXCLUSIVE: lockstep.IntentExclusive,
		pb.Access_ACCESS_SHARED_INTENT_EXCLUSIVE: lockstep.SharedIntentExclusive,
	}
	for mp, ma := range accesses {
		for cp, ca := range accesses {
			for _, maskFirst := range []bool{true, false} {
				what := fmt.Sprintf("dir/*:%v, dir/f:%v, mask first %v", ma, ca, maskFirst)
				if ma != lockstep.Shared && ma != lockstep.Exclusive {
					_, err := c.TryLock(ctx, lockReq(a, item("dir/*", mp)))
					requireRefusal(t, err, connect.CodeInvalidArgument, pb.LockError_REASON_INVALID_ID)
					require.ErrorContains(t, err, "Shared or Exclusive", what)
					d, err := c.DescribeSession(ctx, connect.NewRequest(&pb.DescribeSessionRequest{SessionId: a}))
					require.NoError(t, err)
					require.Empty(t, d.Msg.Locks, "%s: the refusal holds nothing", what)
					continue
				}
				first, second := lockReq(a, item("dir/*", mp)), lockReq(b, item("dir/f", cp))
				if !maskFirst {
					first, second = lockReq(b, item("dir/f", cp)), lockReq(a, item("dir/*", mp))
				}
				_, err := c.TryLock(ctx, first)
				require.NoError(t, err, what)
				_, err = c.TryLock(ctx, second)
				if !ma.Compatible(ca) {
					requireRefusal(t, err, connect.CodeFailedPrecondition, pb.LockError_REASON_LOCKED)
				} else {
					require.NoError(t, err, what)
				}
				for _, s := range []string{a, b} {
					_, err = c.UnlockAll(ctx, connect.NewRequest(&pb.UnlockAllRequest{SessionId: s}))
					require.NoError(t, err)
				}
			}
		}
	}
}
