package held

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
)

// fakePart is a Part whose deletes fail while failures > 0, and which logs
// what Lock asked of it.
type fakePart struct {
	name     string
	log      *[]string
	mu       *sync.Mutex
	lost     bool // Stop reports the lease lost
	failures int  // the next n Releases fail
	released bool
}

var errDelete = errors.New("fake: delete failed")

func (p *fakePart) note(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	*p.log = append(*p.log, p.name+" "+s)
}

func (p *fakePart) Stop() bool    { p.note("stop"); return p.lost }
func (p *fakePart) Expired() bool { return false }

func (p *fakePart) Release(context.Context) (bool, error) {
	if p.released {
		return false, nil
	}
	if p.failures > 0 {
		p.failures--
		p.note("release failed")
		return true, errDelete
	}
	p.released = true
	p.note("release")
	return true, nil
}

// recorder is an Observer that keeps the release events.
type recorder struct {
	lockstep.Observer
	mu       sync.Mutex
	releases []lockstep.ReleaseEvent
}

func (r *recorder) ObserveRelease(_ context.Context, e lockstep.ReleaseEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.releases = append(r.releases, e)
}

func newParts(names ...string) ([]*fakePart, *[]string) {
	log, mu := &[]string{}, &sync.Mutex{}
	ps := make([]*fakePart, len(names))
	for i, n := range names {
		ps[i] = &fakePart{name: n, log: log, mu: mu}
	}
	return ps, log
}

func newLock(ps []*fakePart, rec *recorder, spec Spec) *Lock {
	parts := make([]Part, len(ps))
	for i, p := range ps {
		parts[i] = p
	}
	spec.ID, spec.Owner, spec.Mode = "id", "p.1", lockstep.ModeCombined
	spec.Parts, spec.Loss, spec.Clock, spec.Observer = parts, NewLoss(), &clock.Local{}, rec
	return New(spec)
}

// Unlock stops every part before any delete, then deletes last taken first,
// runs OnStop once and OnReleased once, and reports one release event with
// the requests it sent; a call after the release returns nil, silently.
func TestLock_UnlockStopsAllThenReleasesLastFirst(t *testing.T) {
	ps, log := newParts("queue", "legacy")
	rec := &recorder{Observer: lockstep.NopObserver{}}
	stops, releases := 0, 0
	l := newLock(ps, rec, Spec{OnStop: func() { stops++ }, OnReleased: func() { releases++ }})
	require.NoError(t, l.Unlock(context.Background()))
	require.Equal(t, []string{"queue stop", "legacy stop", "legacy release", "queue release"}, *log)
	require.NoError(t, l.Unlock(context.Background()), "a later call returns nil at once")
	require.Equal(t, 4, len(*log), "and sends nothing")
	require.Equal(t, 1, stops)
	require.Equal(t, 1, releases)
	require.Len(t, rec.releases, 1)
	require.Equal(t, 2, rec.releases[0].Requests)
	require.False(t, rec.releases[0].WasLost)
}

// A failed delete is retried by the next call, and only that part's: the
// part whose delete succeeded is not sent again, and the parts are not
// stopped again.
func TestLock_RetriedUnlockRetriesOnlyTheFailedPart(t *testing.T) {
	ps, log := newParts("queue", "legacy")
	ps[0].failures = 1
	l := newLock(ps, &recorder{Observer: lockstep.NopObserver{}}, Spec{})
	err := l.Unlock(context.Background())
	require.ErrorIs(t, err, errDelete)
	require.NotErrorIs(t, err, lockstep.ErrLost)
	require.NoError(t, l.Unlock(context.Background()))
	require.Equal(t, []string{"queue stop", "legacy stop", "legacy release", "queue release failed", "queue release"}, *log)
}

// After a loss the first Unlock still deletes every part's cells and
// returns an error wrapping ErrLost, joined with any delete error; the
// retry returns only what is left.
func TestLock_UnlockAfterALossReportsItOnce(t *testing.T) {
	ps, _ := newParts("queue", "legacy")
	ps[1].lost = true
	ps[1].failures = 1
	rec := &recorder{Observer: lockstep.NopObserver{}}
	l := newLock(ps, rec, Spec{})
	err := l.Unlock(context.Background())
	require.ErrorIs(t, err, lockstep.ErrLost)
	require.ErrorIs(t, err, errDelete)
	require.True(t, ps[0].released, "the other part's cells are deleted all the same")
	require.NoError(t, l.Unlock(context.Background()), "the loss is reported by the first call only")
	require.True(t, rec.releases[0].WasLost)
}

// With ParallelRelease both deletes are sent (the order is the scheduler's),
// and a failure of either is retried alone.
func TestLock_ParallelReleaseSendsEveryDelete(t *testing.T) {
	ps, _ := newParts("queue", "legacy")
	ps[1].failures = 1
	l := newLock(ps, &recorder{Observer: lockstep.NopObserver{}}, Spec{ParallelRelease: true})
	require.ErrorIs(t, l.Unlock(context.Background()), errDelete)
	require.True(t, ps[0].released)
	require.False(t, ps[1].released)
	require.NoError(t, l.Unlock(context.Background()))
	require.True(t, ps[1].released)
}

// AddOnStop runs f at the first Unlock, after the earlier hooks, or at once
// if that Unlock has run.
func TestLock_AddOnStop(t *testing.T) {
	ps, _ := newParts("queue")
	var order []string
	l := newLock(ps, &recorder{Observer: lockstep.NopObserver{}}, Spec{OnStop: func() { order = append(order, "spec") }})
	l.AddOnStop(func() { order = append(order, "added") })
	require.Empty(t, order)
	require.NoError(t, l.Unlock(context.Background()))
	require.Equal(t, []string{"spec", "added"}, order)
	l.AddOnStop(func() { order = append(order, "late") })
	require.Equal(t, []string{"spec", "added", "late"}, order)
}

// An Unlock waiting for another whose ctx ends returns ctx's error and
// changes nothing.
func TestLock_UnlockWaitingForAnotherHonoursCtx(t *testing.T) {
	ps, log := newParts("queue")
	l := newLock(ps, &recorder{Observer: lockstep.NopObserver{}}, Spec{})
	require.NoError(t, l.mu.Lock(context.Background(), l.s.Clock)) // another Unlock in flight
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := l.Unlock(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.Contains(t, err.Error(), "waiting for another Unlock")
	require.Empty(t, *log)
	l.mu.Unlock()
	require.NoError(t, l.Unlock(context.Background()))
}
