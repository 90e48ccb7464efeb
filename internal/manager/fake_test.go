package manager

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/held"
)

// errStore stands for a store request that failed.
var errStore = errors.New("fake store: unavailable")

// table is a fake Locker's lock table in memory: per id, the holders and a
// FIFO queue of waiters; a request is granted when it heads the queue and is
// compatible with every holder (lockstep.Access.Compatible). Its One counts
// calls and logs every take and release.
type table struct {
	mu   sync.Mutex
	cond *sync.Cond
	rows map[string]*row

	calls  int      // One calls
	log    []string // "take a:X", "release a", "fail-release a"
	tokens map[string]int64
	owners int

	plain      map[string]bool  // ids whose locks have no *held.Loss
	failTake   map[string]error // ids whose next take fails with this error
	failUnlock map[string]int   // ids whose next n Unlocks fail
	afterTake  func(id string)  // called after a take, outside mu
}

type row struct {
	holders map[*fakeLock]bool
	queue   []*int // waiters, by identity
}

func newTable() *table {
	t := &table{rows: map[string]*row{}, tokens: map[string]int64{}, plain: map[string]bool{},
		failTake: map[string]error{}, failUnlock: map[string]int{}}
	t.cond = sync.NewCond(&t.mu)
	return t
}

func (t *table) row(id string) *row {
	r := t.rows[id]
	if r == nil {
		r = &row{holders: map[*fakeLock]bool{}}
		t.rows[id] = r
	}
	return r
}

func (r *row) admits(a lockstep.Access) bool {
	for h := range r.holders {
		if !h.access.Compatible(a) {
			return false
		}
	}
	return true
}

// one is the fake's One.
func (t *table) one(ctx context.Context, id string, a lockstep.Access, try bool) (lockstep.Lock, error) {
	t.mu.Lock()
	t.calls++
	if err := t.failTake[id]; err != nil {
		delete(t.failTake, id)
		t.mu.Unlock()
		return nil, err
	}
	r := t.row(id)
	if try {
		if len(r.queue) > 0 || !r.admits(a) {
			t.mu.Unlock()
			return nil, fmt.Errorf("fake: %q: %w", id, lockstep.ErrLocked)
		}
	} else if err := t.await(ctx, r, a); err != nil {
		t.mu.Unlock()
		return nil, err
	}
	t.owners++
	t.tokens[id]++
	l := &fakeLock{t: t, id: id, access: a, owner: fmt.Sprintf("owner-%d", t.owners), token: t.tokens[id]}
	r.holders[l] = true
	t.log = append(t.log, "take "+id+":"+a.String())
	plain := t.plain[id]
	hook := t.afterTake
	t.mu.Unlock()
	if hook != nil {
		hook(id)
	}
	if plain {
		l.ch = make(chan struct{})
		return plainLock{l}, nil
	}
	l.loss = held.NewLoss()
	l.loss.Watch(func() time.Duration {
		if l.expired.Load() {
			return 0
		}
		return time.Hour
	})
	return heldLock{l}, nil
}

// await queues for r under t.mu until granted or ctx ends.
func (t *table) await(ctx context.Context, r *row, a lockstep.Access) error {
	w := new(int)
	r.queue = append(r.queue, w)
	t.cond.Broadcast() // waitFor watchers
	stop := context.AfterFunc(ctx, func() { t.mu.Lock(); t.cond.Broadcast(); t.mu.Unlock() })
	defer stop()
	for {
		if r.queue[0] == w && r.admits(a) {
			r.queue = r.queue[1:]
			t.cond.Broadcast() // the next waiter may be compatible too
			return nil
		}
		if ctx.Err() != nil {
			r.queue = slices.DeleteFunc(r.queue, func(x *int) bool { return x == w })
			t.cond.Broadcast()
			return ctx.Err()
		}
		t.cond.Wait()
	}
}

// held returns what is held, as sorted "id:access" strings.
func (t *table) held() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for id, r := range t.rows {
		for h := range r.holders {
			out = append(out, id+":"+h.access.String())
		}
	}
	slices.Sort(out)
	return out
}

func (t *table) logged() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.log)
}

func (t *table) resetLog() {
	t.mu.Lock()
	t.log = nil
	t.mu.Unlock()
}

func (t *table) callCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.calls
}

// waitFor blocks until pred holds (checked under t.mu after every change),
// failing the test after a generous bound.
func (t *table) waitFor(tb testing.TB, what string, pred func() bool) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { t.mu.Lock(); t.cond.Broadcast(); t.mu.Unlock() })
	defer stop()
	t.mu.Lock()
	defer t.mu.Unlock()
	for !pred() {
		if ctx.Err() != nil {
			tb.Fatalf("timed out waiting for %s", what)
		}
		t.cond.Wait()
	}
}

// waiters counts the waiters queued for id; call under t.mu (from waitFor).
func (t *table) waiters(id string) int { return len(t.row(id).queue) }

// fakeLock is one acquisition in the table.
type fakeLock struct {
	t      *table
	id     string
	access lockstep.Access
	owner  string
	token  int64

	loss    *held.Loss    // heldLock flavour
	ch      chan struct{} // plainLock flavour
	once    sync.Once
	expired atomic.Bool // the lease's deadline has passed (seen by Loss checks)

	released, lossReported bool // under t.mu
}

func (l *fakeLock) ID() string          { return l.id }
func (l *fakeLock) Owner() string       { return l.owner }
func (l *fakeLock) Mode() lockstep.Mode { return lockstep.ModeNew }
func (l *fakeLock) Token() int64        { return l.token }

// lose declares the lease lost, as the lease's hook would.
func (l *fakeLock) lose() {
	if l.loss != nil {
		l.loss.Fire()
		return
	}
	l.once.Do(func() { close(l.ch) })
}

func (l *fakeLock) isLost() bool {
	if l.loss != nil {
		return l.loss.Fired()
	}
	select {
	case <-l.ch:
		return true
	default:
		return false
	}
}

// Unlock deletes the holder from the table unless the fake was told to fail
// it, or ctx is done; it reports ErrLost on the first call after a loss.
func (l *fakeLock) Unlock(ctx context.Context) error {
	lost := l.isLost()
	t := l.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if l.released {
		return nil
	}
	var lostErr error
	if lost && !l.lossReported {
		l.lossReported = true
		lostErr = fmt.Errorf("fake: unlock %q: %w", l.id, lockstep.ErrLost)
	}
	if err := ctx.Err(); err != nil {
		t.log = append(t.log, "fail-release "+l.id)
		return errors.Join(lostErr, fmt.Errorf("fake: delete %q: %w", l.id, err))
	}
	if t.failUnlock[l.id] > 0 {
		t.failUnlock[l.id]--
		t.log = append(t.log, "fail-release "+l.id)
		return errors.Join(lostErr, fmt.Errorf("fake: delete %q: %w", l.id, errStore))
	}
	l.released = true
	delete(t.row(l.id).holders, l)
	t.log = append(t.log, "release "+l.id)
	t.cond.Broadcast()
	return lostErr
}

// heldLock is a fake lock whose loss is a *held.Loss, as the module's are.
type heldLock struct{ *fakeLock }

func (l heldLock) Lost() <-chan struct{} { return l.loss.C() }
func (l heldLock) Loss() *held.Loss      { return l.loss }

// plainLock is a fake lock with only a Lost channel.
type plainLock struct{ *fakeLock }

func (l plainLock) Lost() <-chan struct{} { return l.ch }

// fakeOf returns the fake lock behind a member of g.
func fakeOf(tb testing.TB, l lockstep.Lock, i int) *fakeLock {
	tb.Helper()
	g := groupOf(tb, l)
	switch f := g.members[i].real.(type) {
	case heldLock:
		return f.fakeLock
	case plainLock:
		return f.fakeLock
	}
	tb.Fatalf("member %d is a %T", i, g.members[i].real)
	return nil
}

func groupOf(tb testing.TB, l lockstep.Lock) *Lock {
	tb.Helper()
	switch g := l.(type) {
	case *Lock:
		return g
	case FencedLock:
		return g.Lock
	}
	tb.Fatalf("Acquire returned a %T", l)
	return nil
}

// fakeLocker is a Locker over the fake table: its Manager, and its
// acquisition of one id, the table's one, driving the Manager's Runs.
type fakeLocker struct {
	*Manager
	one func(ctx context.Context, id string, a lockstep.Access, try bool) (lockstep.Lock, error)
}

// drive takes run's members through l.one, as a Locker's Lock does.
func (l *fakeLocker) drive(run *Run) (lockstep.Lock, error) {
	for run.Next() {
		st := run.Step()
		run.Done(l.one(st.Ctx(), st.ID, st.Access, st.Try))
	}
	return run.Result()
}

// unitCall is the ctx of a harness call made for a unit of work: the
// harness passes who to the Run (Start's argument), as a Locker's Unit
// does. It carries no ctx value.
type unitCall struct {
	context.Context
	who Who
}

// forUnit returns ctx for the harness's calls made for holder.
func forUnit(ctx context.Context, holder any) context.Context {
	return unitCall{ctx, Who{Holder: holder}}
}

// whoOf returns the Who of a harness call: its unit's, or none.
func whoOf(ctx context.Context) (context.Context, Who) {
	if u, ok := ctx.(unitCall); ok {
		return u.Context, u.who
	}
	return ctx, Who{}
}

// startGroup is s.StartGroup for the harness call ctx (whoOf).
func startGroup(s interface {
	StartGroup(context.Context, Who, []lockstep.Request, bool) *Run
}, ctx context.Context, reqs []lockstep.Request, try bool) *Run {
	ctx, who := whoOf(ctx)
	return s.StartGroup(ctx, who, reqs, try)
}

// Acquire takes reqs as a group, even one flat request without a holder.
func (l *fakeLocker) Acquire(ctx context.Context, reqs []lockstep.Request, try bool) (lockstep.Lock, error) {
	ctx, who := whoOf(ctx)
	return l.drive(l.StartGroup(ctx, who, reqs, try))
}

// Group is a Locker's LockGroup (with try: TryLockGroup).
func (l *fakeLocker) Group(ctx context.Context, reqs []lockstep.Request, try bool) (lockstep.Lock, error) {
	ctx, who := whoOf(ctx)
	return l.drive(l.Start(ctx, who, reqs, try))
}

func newManager(tb testing.TB, sep string) (*fakeLocker, *table) {
	tb.Helper()
	t := newTable()
	m, err := New(sep, nil, nil, nil)
	require.NoError(tb, err)
	return &fakeLocker{Manager: m, one: t.one}, t
}

func reqs(rs ...string) []lockstep.Request {
	out := make([]lockstep.Request, len(rs))
	for i, r := range rs {
		out[i] = req(r)
	}
	return out
}

// req parses "id:ACCESS" (the last colon), or "id" for Exclusive.
func req(s string) lockstep.Request {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ':' {
			a, err := lockstep.ParseAccess(s[i+1:])
			if err != nil {
				panic(err)
			}
			return lockstep.Request{ID: s[:i], Access: a}
		}
	}
	return lockstep.Request{ID: s}
}

func strs(rs []lockstep.Request) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.String()
	}
	return out
}

// waitersLocked counts the waiters queued for id.
func (t *table) waitersLocked(id string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.waiters(id)
}
