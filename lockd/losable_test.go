package lockd_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/lockstep-go/lockstep"
)

// losable wraps a GroupLocker so that a test can declare the lease of any
// lock it returned lost, as a store outage would: the lock's Lost closes,
// and its first Unlock releases it and reports lockstep.ErrLost, as the
// library's do. entered, when set, receives the id of each Lock call as it
// reaches the library.
type losable struct {
	lockstep.GroupLocker
	entered    chan string
	failUnlock atomic.Int32 // the next Unlocks that fail with a store error, before touching the lock
	mu         sync.Mutex
	locks      []*losableLock
}

type losableLock struct {
	lockstep.Lock
	w        *losable
	lost     chan struct{}
	once     sync.Once
	reported bool
	mu       sync.Mutex
}

func (l *losableLock) Lost() <-chan struct{} { return l.lost }

func (l *losableLock) Unlock(ctx context.Context) error {
	if l.w.failUnlock.Add(-1) >= 0 {
		return errStoreDown
	}
	l.w.failUnlock.Store(0)
	err := l.Lock.Unlock(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.lost:
		if !l.reported {
			l.reported = true
			return errors.Join(lockstep.ErrLost, err)
		}
	default:
	}
	return err
}

func (w *losable) wrap(l lockstep.Lock, err error) (lockstep.Lock, error) {
	if err != nil {
		return nil, err
	}
	ll := &losableLock{Lock: l, w: w, lost: make(chan struct{})}
	w.mu.Lock()
	w.locks = append(w.locks, ll)
	w.mu.Unlock()
	return ll, nil
}

// errStoreDown is the store error of an injected Unlock failure.
var errStoreDown = errors.New("cassandra: delete queue_lock: no hosts available")

// loseAll closes the Lost channel of every lock returned so far.
func (w *losable) loseAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range w.locks {
		l.once.Do(func() { close(l.lost) })
	}
}

func (w *losable) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	if w.entered != nil {
		w.entered <- id
	}
	return w.wrap(w.GroupLocker.Lock(ctx, id))
}

func (w *losable) TryLock(ctx context.Context, id string) (lockstep.Lock, error) {
	return w.wrap(w.GroupLocker.TryLock(ctx, id))
}

func (w *losable) LockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return w.wrap(w.GroupLocker.LockGroup(ctx, reqs...))
}

func (w *losable) TryLockGroup(ctx context.Context, reqs ...lockstep.Request) (lockstep.Lock, error) {
	return w.wrap(w.GroupLocker.TryLockGroup(ctx, reqs...))
}

// Token passes the inner lock's fencing token through (0 when it has none).
func (l *losableLock) Token() int64 {
	if f, ok := l.Lock.(lockstep.Fenced); ok {
		return f.Token()
	}
	return 0
}
