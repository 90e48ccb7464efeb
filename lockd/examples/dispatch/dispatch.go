package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"connectrpc.com/connect"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// message is one delivered message: its place in its instance's stream,
// what it does, and the keys of the resources it touches.
type message struct {
	seq  int
	kind string
	keys []string
}

// The hierarchy: prefix / currency / account.
var (
	currencies = []string{"usd", "eur", "jpy"}
	accounts   = 4
)

// stream returns n messages as a bank's services might receive them:
// mostly deposits to one account, some conversions between two accounts
// of different currencies, some rate updates of a whole currency, and a
// rare audit of the whole bank.
func stream(prefix string, n int, rnd *rand.Rand) []message {
	account := func(cur string) string { return fmt.Sprintf("%s/%s/acc%d", prefix, cur, rnd.IntN(accounts)) }
	out := make([]message, n)
	for i := range out {
		cur := currencies[rnd.IntN(len(currencies))]
		switch p := rnd.IntN(100); {
		case p < 60:
			out[i] = message{kind: "deposit", keys: []string{account(cur)}}
		case p < 85:
			other := currencies[(rnd.IntN(len(currencies)-1)+1+indexOf(cur))%len(currencies)]
			out[i] = message{kind: "convert", keys: []string{account(cur), account(other)}}
		case p < 97:
			out[i] = message{kind: "rate", keys: []string{prefix + "/" + cur}}
		default:
			out[i] = message{kind: "audit", keys: []string{prefix}}
		}
		out[i].seq = i
	}
	return out
}

func indexOf(cur string) int {
	for i, c := range currencies {
		if c == cur {
			return i
		}
	}
	return -1
}

// worker is one of an instance's workers, with its session.
type worker struct {
	session string
	rnd     *rand.Rand
}

// instance runs one service instance: workers sessions of its own, and a
// dispatcher that takes msgs in order (see the package doc).
func instance(ctx context.Context, c lockstepv1connect.LockServiceClient, id, workers int, process time.Duration, msgs []message, rec *recorder, seed uint64) error {
	free := make(chan *worker, workers)
	var sessions []string
	defer func() {
		for _, s := range sessions {
			_, _ = c.CloseSession(context.WithoutCancel(ctx), connect.NewRequest(&pb.CloseSessionRequest{SessionId: s}))
		}
	}()
	for w := range workers {
		s, err := c.OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{Name: fmt.Sprintf("dispatch-i%d-w%d", id, w)}))
		if err != nil {
			return fmt.Errorf("instance %d: opening a session: %w", id, err)
		}
		sessions = append(sessions, s.Msg.SessionId)
		free <- &worker{session: s.Msg.SessionId, rnd: rand.New(rand.NewPCG(seed, uint64(id*1000+w)))}
	}

	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	for _, m := range msgs {
		w := <-free // the head waits for a worker...
		items := make([]*pb.LockItem, len(m.keys))
		for i, k := range m.keys {
			items[i] = &pb.LockItem{Id: k, Access: pb.Access_ACCESS_EXCLUSIVE}
		}
		// ...then for its keys, as one group; nothing behind it starts first.
		held, err := c.Lock(ctx, connect.NewRequest(&pb.LockRequest{SessionId: w.session, Items: items}))
		if err != nil {
			fail(fmt.Errorf("instance %d, message %d (%v): %w", id, m.seq, m.keys, err))
			break
		}
		start := time.Now() // granted: the message's interval starts here
		wg.Go(func() {
			defer func() { free <- w }()
			time.Sleep(process/2 + time.Duration(w.rnd.Int64N(int64(process)+1))) // the processing
			end := time.Now()
			rec.add(span{instance: id, msg: m, start: start, end: end})
			if _, err := c.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: w.session, LockId: held.Msg.Lock.LockId})); err != nil {
				fail(fmt.Errorf("instance %d, message %d: unlock: %w", id, m.seq, err))
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
