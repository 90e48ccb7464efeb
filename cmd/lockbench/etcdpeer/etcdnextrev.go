package main

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lockstep-go/lockstep/cmd/lockbench/peer"
)

// etcdNextRev is etcd's Mutex with its watch fixed, the algorithm
// etcd-nextrev: the queue, the keys and the lease of concurrency.Mutex, but
// each wait for a predecessor's deletion watches from the server's next
// revision, not from the revision of the read that found the predecessor.
//
// The Mutex's waitDelete watches from the read's header revision rev. The
// server's watchable store counts a watch starting at or below its current
// revision as unsynced and serves it from a loop that runs every 100 ms, so
// a waiter learns of its predecessor's release only at that loop's next pass
// (etcd 3.4's mvcc/watchable_store.go; the loop and its period are the same
// in later releases). A watch from the revision after the current one is
// synced from its creation: the deletion is sent as it commits. Watching
// from rev+1 is not enough on a busy queue: any write between the read and
// the watch's creation (another waiter enqueuing) makes rev+1 a past
// revision again.
//
// Safety is the Mutex's, key for key: a process enqueues by creating
// prefix/<lease in hex> under its session's lease (a Txn that creates it if
// absent and reads the queue's first key), holds the lock when its key has
// the lowest creation revision under the prefix, and otherwise waits until
// every key created before its own is deleted, each time reading the last
// of them and waiting for its deletion (awaitDeletion). That wait misses no
// deletion: the read at revision rev found the key, the watch reports every
// event after the revision W its creation names, and when W > rev a Get
// made after the creation reports whether the key went in between; after
// every wait the queue is read again. Before returning, Lock
// reads its own key: gone means the session's lease expired and the lock is
// not held. A session that dies deletes its key with its lease, so its
// successor goes on. The keys are the Mutex's, so this lock and etcd's
// Mutex and lock service exclude one another on the same name.
//
// Safe for concurrent use (each Lock's state is its own).
type etcdNextRev struct{ *etcdLocker }

// Lock takes the lock of id, waiting in its queue until it is first or ctx
// ends; then it deletes its queue key and returns an error that wraps
// ctx.Err().
func (l etcdNextRev) Lock(ctx context.Context, id string) (peer.Unlocker, error) {
	pfx := etcdPrefix + id + "/"
	key := fmt.Sprintf("%s%x", pfx, l.session.Lease())
	rev, first, err := l.enqueue(ctx, pfx, key)
	if err != nil {
		return nil, l.lockError(ctx, id, err)
	}
	if first {
		return etcdNextRevHeld{c: l.client, key: key}, nil
	}
	if err := l.awaitPredecessors(ctx, pfx, rev-1); err != nil {
		l.dequeue(key)
		return nil, l.lockError(ctx, id, err)
	}
	g, err := l.client.Get(ctx, key)
	if err != nil {
		l.dequeue(key)
		return nil, l.lockError(ctx, id, err)
	}
	if len(g.Kvs) == 0 {
		return nil, fmt.Errorf("etcd-nextrev lock %q: the session's lease expired while waiting, its queue key is gone", id)
	}
	return etcdNextRevHeld{c: l.client, key: key}, nil
}

// enqueue creates key under the session's lease unless it exists, and
// returns its creation revision and whether it is the queue's first key:
// one Txn, as the Mutex's.
func (l etcdNextRev) enqueue(ctx context.Context, pfx, key string) (rev int64, first bool, err error) {
	owner := clientv3.OpGet(pfx, clientv3.WithFirstCreate()...)
	resp, err := l.client.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, "", clientv3.WithLease(l.session.Lease())), owner).
		Else(clientv3.OpGet(key), owner).
		Commit()
	if err != nil {
		return 0, false, err
	}
	rev = resp.Header.Revision
	if !resp.Succeeded {
		rev = resp.Responses[0].GetResponseRange().Kvs[0].CreateRevision
	}
	kvs := resp.Responses[1].GetResponseRange().Kvs
	return rev, len(kvs) == 0 || kvs[0].CreateRevision == rev, nil
}

// awaitPredecessors returns once no key under pfx has a creation revision
// of maxRev or less: it reads the last such key and waits for its deletion,
// watching from the revision after the read, until the read finds none.
func (l etcdNextRev) awaitPredecessors(ctx context.Context, pfx string, maxRev int64) error {
	opts := append(clientv3.WithLastCreate(), clientv3.WithMaxCreateRev(maxRev))
	for {
		resp, err := l.client.Get(ctx, pfx, opts...)
		if err != nil {
			return err
		}
		if len(resp.Kvs) == 0 {
			return nil
		}
		if err := awaitDeletion(ctx, l.client, resp.Kvs[0], resp.Header.Revision); err != nil {
			return err
		}
	}
}

// awaitDeletion returns once kv, read at revision read, is deleted (or
// replaced by a key of a later creation), ctx ends or the watch fails.
//
// It watches the key from the server's next revision, so the watch is
// synced from its creation. The server's answer to the creation carries the
// revision W the watch follows: every event after W is sent. If W is the
// read's revision, nothing was written in between and the watch alone
// suffices; if W is later, one Get of the key, made after the creation,
// tells whether the key went in between.
func awaitDeletion(ctx context.Context, c *clientv3.Client, kv *mvccpb.KeyValue, read int64) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := c.Watch(wctx, string(kv.Key), clientv3.WithCreatedNotify())
	created, ok := <-ch
	if !ok || !created.Created {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fmt.Errorf("watch of %q not created: %v", kv.Key, created.Err())
	}
	if created.Header.Revision > read {
		g, err := c.Get(ctx, string(kv.Key))
		if err != nil {
			return err
		}
		if len(g.Kvs) == 0 || g.Kvs[0].CreateRevision != kv.CreateRevision {
			return nil
		}
	}
	for wr := range ch {
		if err := wr.Err(); err != nil {
			return err
		}
		for _, ev := range wr.Events {
			if ev.Type == mvccpb.Event_DELETE {
				return nil
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.New("watch closed before the predecessor's deletion")
}

// dequeue deletes key, on the client's context since the caller's may have
// ended: what the Mutex does when its wait fails. Should it fail too, the
// key goes with the session's lease.
func (l etcdNextRev) dequeue(key string) { _, _ = l.client.Delete(l.client.Ctx(), key) }

// lockError wraps err for Lock, joining ctx's error when ctx has ended
// (etcd names the deadline only in its text).
func (l etcdNextRev) lockError(ctx context.Context, id string, err error) error {
	if cerr := ctxErrAfter(ctx, err); cerr != nil {
		return fmt.Errorf("etcd-nextrev lock %q: %w", id, errors.Join(cerr, err))
	}
	return fmt.Errorf("etcd-nextrev lock %q: %w", id, err)
}

// etcdNextRevHeld is a held etcd-nextrev lock, by its queue key.
type etcdNextRevHeld struct {
	c   *clientv3.Client
	key string
}

// Unlock deletes the queue key, which hands the lock to the next waiter.
func (h etcdNextRevHeld) Unlock(ctx context.Context) error {
	if _, err := h.c.Delete(ctx, h.key); err != nil {
		return fmt.Errorf("etcd-nextrev unlock %q: %w", h.key, err)
	}
	return nil
}
