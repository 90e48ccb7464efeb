package lockd_test

import (
	"context"
	"fmt"
	"net"
	"net/http"

	"connectrpc.com/connect"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/lockd"
	lockstepv1 "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

// A lockd on the embedded model, called with the generated Go client: one
// session takes a lock, a second session's TryLock is refused with
// FailedPrecondition until the first unlocks.
func Example() {
	ctx := context.Background()
	store := model.New(&clock.Local{})
	// The process's Locker, as any fleet process has: on a fresh store the
	// phase is legacy, so this one takes legacy locks.
	locker, err := migration.New(store, migration.Static(lockstep.ModeLegacy), &migration.Options{Separator: "/"})
	if err != nil {
		panic(err)
	}
	defer locker.Close(ctx)
	srv, err := lockd.New(locker, nil) // no principals: open mode
	if err != nil {
		panic(err)
	}
	defer srv.Close(ctx)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	hs := &http.Server{Handler: srv.Handler()}
	go hs.Serve(ln)
	defer hs.Close()

	c := lockstepv1connect.NewLockServiceClient(http.DefaultClient, "http://"+ln.Addr().String())
	open := func() string {
		s, err := c.OpenSession(ctx, connect.NewRequest(&lockstepv1.OpenSessionRequest{}))
		if err != nil {
			panic(err)
		}
		return s.Msg.SessionId
	}
	alice, bob := open(), open()
	lock := func(session string) *lockstepv1.LockRequest {
		return &lockstepv1.LockRequest{SessionId: session, Items: []*lockstepv1.LockItem{{Id: "invoice/42"}}}
	}
	held, err := c.Lock(ctx, connect.NewRequest(lock(alice)))
	if err != nil {
		panic(err)
	}
	fmt.Println("alice:", held.Msg.Lock.LockId)
	_, err = c.TryLock(ctx, connect.NewRequest(lock(bob)))
	fmt.Println("bob:", connect.CodeOf(err))
	_, err = c.Unlock(ctx, connect.NewRequest(&lockstepv1.UnlockRequest{SessionId: alice, LockId: held.Msg.Lock.LockId}))
	fmt.Println("alice unlocks:", err)
	got, err := c.TryLock(ctx, connect.NewRequest(lock(bob)))
	if err != nil {
		panic(err)
	}
	fmt.Println("bob:", got.Msg.Lock.LockId)
	// Output:
	// alice: l-1
	// bob: failed_precondition
	// alice unlocks: <nil>
	// bob: l-1
}
