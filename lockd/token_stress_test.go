package lockd_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// In phase combined the Locker's locks hold legacy cells too, which the
// library's Share refuses (ErrIncompatibleMode). Sharing an identity within
// one lockd moves nothing in the store, so it serves them all the same:
// the same handle and fencing token, held across the giver's close.
func TestToken_CombinedModeHoldsAreSharedWithinOneLockd(t *testing.T) {
	f := newFixture(t, fixtureOptions{combined: true})
	c := f.client("grpc", "", nil)
	ctx := context.Background()
	a, b := open(t, c, 0), open(t, c, 0)
	got, err := c.Lock(ctx, lockReq(a, item("cmb-1", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	res, err := setToken(c, b, getToken(t, c, a))
	require.NoError(t, err)
	require.Equal(t, got.Msg.Lock.Token, res.Locks[0].Token)
	_, err = c.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: a}))
	require.NoError(t, err)
	requireFree(t, c, "cmb-1", false)
	_, err = c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: b, LockId: res.Locks[0].LockId}))
	require.NoError(t, err)
	requireFree(t, c, "cmb-1", true)
}

// Sessions joining each other's identities while they lock, unlock, unlock
// all and close, concurrently (under -race): every call answers with a
// status of the table, and when every session has ended every id is free
// and the fixture's cleanup finds no goroutine left.
func TestToken_ConcurrentJoinsLocksAndClosesLeaveNothingBehind(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := f.client("connect", "", nil)
	ctx := context.Background()
	const workers, steps = 5, 25
	ids := []string{"st-1", "st-2", "st-3"}
	var mu sync.Mutex
	var sessions, tokens []string
	pick := func(r *rand.Rand, xs *[]string) string {
		mu.Lock()
		defer mu.Unlock()
		if len(*xs) == 0 {
			return ""
		}
		return (*xs)[r.IntN(len(*xs))]
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			s := open(t, c, 0)
			mu.Lock()
			sessions = append(sessions, s)
			mu.Unlock()
			for range steps {
				var err error
				switch r.IntN(6) {
				case 0:
					var res *connect.Response[pb.GetTokenResponse]
					if res, err = c.GetToken(ctx, connect.NewRequest(&pb.GetTokenRequest{SessionId: s})); err == nil {
						mu.Lock()
						tokens = append(tokens, res.Msg.Token)
						mu.Unlock()
					}
				case 1:
					if tok := pick(r, &tokens); tok != "" {
						_, err = setToken(c, s, tok)
					}
				case 2:
					_, err = c.TryLock(ctx, lockReq(s, item(ids[r.IntN(len(ids))], pb.Access_ACCESS_EXCLUSIVE)))
				case 3:
					lctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
					_, err = c.Lock(lctx, lockReq(s, item(ids[r.IntN(len(ids))], pb.Access_ACCESS_EXCLUSIVE)))
					cancel()
				case 4:
					_, err = c.UnlockAll(ctx, connect.NewRequest(&pb.UnlockAllRequest{SessionId: s}))
				case 5:
					d := describe(t, c, s)
					if len(d.Locks) > 0 {
						_, err = c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: s, LockId: d.Locks[r.IntN(len(d.Locks))].LockId}))
					}
				}
				if err != nil {
					switch connect.CodeOf(err) {
					case connect.CodeFailedPrecondition, connect.CodeNotFound, connect.CodeDeadlineExceeded, connect.CodeCanceled:
					default:
						t.Errorf("unexpected %v", err)
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, s := range sessions {
		_, err := c.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: s}))
		require.NoError(t, err, fmt.Sprint(s))
	}
	for _, id := range ids {
		requireFree(t, c, id, true)
	}
}
