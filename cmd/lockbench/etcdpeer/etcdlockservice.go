package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/lockstep-go/lockstep/cmd/lockbench/peer"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protowire"
)

// etcdLockService is etcd's lock service (v3lock, the Lock and Unlock RPCs
// of service v3lockpb.Lock that `etcdctl lock` calls) as a contender: one
// concurrency.Session (a lease kept alive) per process, as for the Mutex,
// and per acquisition a Lock RPC naming the lease, which returns once the
// server holds the lock for it (the server runs the same queue of keys
// ordered by creation revision, on its own side), and an Unlock RPC with the
// key it returned.
//
// The generated v3lockpb package lives in etcd's server module, which would
// bring the whole server into this module's graph; the two messages are
// small, so they are encoded here with protowire and sent as raw bytes
// through the client's own gRPC connection (so its counting interceptor
// counts them as it counts the Mutex's requests):
//
//	LockRequest   { bytes name = 1; int64 lease = 2; }
//	LockResponse  { ResponseHeader header = 1; bytes key = 2; }
//	UnlockRequest { bytes key = 1; }
//
// Safe for concurrent use.
type etcdLockService struct{ *etcdLocker }

// The v3lock methods' full names.
const (
	v3lockLock   = "/v3lockpb.Lock/Lock"
	v3lockUnlock = "/v3lockpb.Lock/Unlock"
)

// Lock asks the lock service for id under the process's lease.
func (l etcdLockService) Lock(ctx context.Context, id string) (peer.Unlocker, error) {
	req := protowire.AppendTag(nil, 1, protowire.BytesType)
	req = protowire.AppendBytes(req, []byte(etcdPrefix+id))
	req = protowire.AppendTag(req, 2, protowire.VarintType)
	req = protowire.AppendVarint(req, uint64(l.session.Lease()))
	var resp []byte
	if err := l.client.ActiveConnection().Invoke(ctx, v3lockLock, &req, &resp, grpc.ForceCodec(rawCodec{})); err != nil {
		if cerr := ctxErrAfter(ctx, err); cerr != nil {
			return nil, fmt.Errorf("etcd lock service %q: %w", id, errors.Join(cerr, err))
		}
		return nil, fmt.Errorf("etcd lock service %q: %w", id, err)
	}
	key, err := lockResponseKey(resp)
	if err != nil {
		return nil, fmt.Errorf("etcd lock service %q: %w", id, err)
	}
	return etcdServiceHeld{l: l, key: key}, nil
}

// lockResponseKey returns the key field of an encoded LockResponse.
func lockResponseKey(b []byte) ([]byte, error) {
	var key []byte
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, fmt.Errorf("bad LockResponse: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if num == 2 && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return nil, fmt.Errorf("bad LockResponse key: %w", protowire.ParseError(m))
			}
			key, b = append([]byte(nil), v...), b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return nil, fmt.Errorf("bad LockResponse field %d: %w", num, protowire.ParseError(m))
		}
		b = b[m:]
	}
	if len(key) == 0 {
		return nil, errors.New("LockResponse without a key")
	}
	return key, nil
}

// etcdServiceHeld is a lock the lock service holds for the process, by its
// key.
type etcdServiceHeld struct {
	l   etcdLockService
	key []byte
}

func (h etcdServiceHeld) Unlock(ctx context.Context) error {
	req := protowire.AppendTag(nil, 1, protowire.BytesType)
	req = protowire.AppendBytes(req, h.key)
	var resp []byte
	if err := h.l.client.ActiveConnection().Invoke(ctx, v3lockUnlock, &req, &resp, grpc.ForceCodec(rawCodec{})); err != nil {
		return fmt.Errorf("etcd lock service unlock %q: %w", h.key, err)
	}
	return nil
}

// rawCodec sends and receives messages already encoded: *[]byte both ways.
// Its name is "proto", so the content type is gRPC's usual one.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, fmt.Errorf("raw codec: cannot marshal %T", v)
	}
	return *b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("raw codec: cannot unmarshal into %T", v)
	}
	*b = append((*b)[:0], data...)
	return nil
}

func (rawCodec) Name() string { return "proto" }
