package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lockstep-go/lockstep/cmd/lockbench/peer"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"
	"google.golang.org/grpc"
)

// etcdTTL is the etcd session's lease TTL, the same as the lockstep
// algorithms' default TTL.
const etcdTTL = 30 * time.Second

// etcdPrefix is where the etcd peer keeps its lock keys.
const etcdPrefix = "/lockbench/"

// etcdLocker is etcd's own lock, lockbench's second peer: one
// concurrency.Session (a lease kept alive in the background) per process
// and a concurrency.Mutex per acquisition — a FIFO queue ordered by
// creation revision, each waiter watching only its predecessor.
//
// Requests are counted as lockbench counts the lockstep lockers': each
// unary RPC (Txn, Range, DeleteRange) into the tally of its ctx, or into
// background. The watch a waiter opens is a stream on the client's own
// context and is not counted.
//
// Safe for concurrent use.
type etcdLocker struct {
	client     *clientv3.Client
	session    *concurrency.Session
	background atomic.Int64
}

func newEtcdLocker(endpoints []string, process string) (*etcdLocker, error) {
	l := &etcdLocker{}
	count := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if t := peer.TallyOf(ctx); t != nil {
			t.Add(1)
		} else {
			l.background.Add(1)
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 10 * time.Second,
		DialOptions: []grpc.DialOption{grpc.WithChainUnaryInterceptor(count)},
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcd client for %v: %w", endpoints, err)
	}
	s, err := concurrency.NewSession(c, concurrency.WithTTL(int(etcdTTL/time.Second)))
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("etcd session for process %s at %v: %w", process, endpoints, err)
	}
	l.client, l.session = c, s
	return l, nil
}

// Lock takes the Mutex of id, waiting in its queue until it is first or ctx
// ends (the Mutex then removes its queue key).
func (l *etcdLocker) Lock(ctx context.Context, id string) (peer.Unlocker, error) {
	m := concurrency.NewMutex(l.session, etcdPrefix+id)
	if err := m.Lock(ctx); err != nil {
		// etcd's error names the deadline only in its text: join ctx's, so
		// that the loop sees the run's end.
		if cerr := ctxErrAfter(ctx, err); cerr != nil {
			return nil, fmt.Errorf("etcd lock %q: %w", id, errors.Join(cerr, err))
		}
		return nil, fmt.Errorf("etcd lock %q: %w", id, err)
	}
	return etcdHeld{m}, nil
}

// serverDeadlineNear is how close ctx's deadline must be for ctxErrAfter to
// take a server's deadline error for ctx's own.
const serverDeadlineNear = time.Second

// ctxErrAfter returns ctx.Err() once err, a request's failure, is seen: when
// err is the server's "context deadline exceeded" and ctx's deadline is
// within serverDeadlineNear, it first waits for ctx to end. gRPC sends the
// deadline with the call, so the server's copy can expire and answer a
// moment before the client's own timer fires; the run's end must still read
// as ctx's.
func ctxErrAfter(ctx context.Context, err error) error {
	if dl, ok := ctx.Deadline(); ok && ctx.Err() == nil && time.Until(dl) < serverDeadlineNear &&
		strings.Contains(err.Error(), context.DeadlineExceeded.Error()) {
		t := time.NewTimer(time.Until(dl) + serverDeadlineNear)
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	}
	return ctx.Err()
}

// Close ends the session (revoking its lease, which deletes any key still
// held) and the client.
func (l *etcdLocker) Close(context.Context) error {
	err := l.session.Close()
	if cerr := l.client.Close(); err == nil {
		err = cerr
	}
	return err
}

// Plain is one linearizable Range of a key nobody writes: a round trip to
// etcd (through its read index) that takes no lock.
func (l *etcdLocker) Plain(ctx context.Context) error {
	_, err := l.client.Get(ctx, etcdPrefix+"plain")
	return err
}

func (l *etcdLocker) BackgroundRequests() int64 { return l.background.Load() }

// etcdHeld is a held etcd Mutex.
type etcdHeld struct{ m *concurrency.Mutex }

func (h etcdHeld) Unlock(ctx context.Context) error { return h.m.Unlock(ctx) }
