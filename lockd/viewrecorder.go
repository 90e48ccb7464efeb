package lockd

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/lockstep-go/lockstep"
)

// Recorder bounds: the charts' window, the wait samples kept per second and
// mode, the ids and deadlock reports remembered.
const (
	recorderSeconds   = 300
	recorderSamples   = 256
	recorderMaxIDs    = 4096
	recorderDeadlocks = 32
	// recorderContended is the wait from which a Lock counts its id as
	// contended.
	recorderContended = 50 * time.Millisecond
)

// Recorder is a lockstep.Observer that keeps the last minutes of its
// Locker's events in memory for the web view (View): acquisitions, waits and
// losses per second and mode, how often each id was acquired or contended,
// and the deadlock reports of the Server's Lock calls chosen as victims. Give it to the
// Locker beside any other Observer (Observers). Each event costs a mutex and
// a few counters: it makes no store request, so the lock path's round trips
// stay what they are. It is safe for concurrent use.
type Recorder struct {
	now func() time.Time

	mu        sync.Mutex
	seconds   [recorderSeconds]second // ring, indexed by unix second
	ids       map[string]*idActivity
	deadlocks []DeadlockReport // oldest first
}

// second is one second's events, per mode (index: lockstep.Mode).
type second struct {
	unix     int64
	acquired [lockstep.ModeNew + 1]int
	losses   [lockstep.ModeNew + 1]int
	waits    [lockstep.ModeNew + 1][]time.Duration // of acquisitions that waited (Lock, not TryLock), at most recorderSamples
}

// idActivity is one id's acquisitions and waits in the window.
type idActivity struct {
	acquired, contended int
	last                time.Time
}

// DeadlockReport is one cycle of waits broken by failing an acquisition of
// this process (lockstep.DeadlockError), with when it was reported.
type DeadlockReport struct {
	At    time.Time
	Cycle []lockstep.DeadlockMember
}

// NewRecorder returns an empty Recorder reading the time from now (nil:
// time.Now).
func NewRecorder(now func() time.Time) *Recorder {
	if now == nil {
		now = time.Now
	}
	return &Recorder{now: now, ids: map[string]*idActivity{}}
}

// slot returns the ring's entry for t, cleared if it held an older second;
// r.mu is held.
func (r *Recorder) slot(t time.Time) *second {
	u := t.Unix()
	s := &r.seconds[u%recorderSeconds]
	if s.unix != u {
		*s = second{unix: u}
	}
	return s
}

// ObserveAcquire implements lockstep.Observer.
func (r *Recorder) ObserveAcquire(_ context.Context, e lockstep.AcquireEvent) {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.slot(now)
	m := e.Mode
	if !m.Valid() {
		m = lockstep.ModeUnknown
	}
	if e.Acquired {
		s.acquired[m]++
		if !e.Try && len(s.waits[m]) < recorderSamples {
			s.waits[m] = append(s.waits[m], e.Wait)
		}
	}
	a := r.ids[e.ID]
	if a == nil {
		if len(r.ids) >= recorderMaxIDs {
			r.pruneLocked(now)
		}
		a = &idActivity{}
		r.ids[e.ID] = a
	}
	if e.Acquired {
		a.acquired++
	}
	if (!e.Try && e.Wait >= recorderContended) || (e.Try && errors.Is(e.Err, lockstep.ErrLocked)) {
		a.contended++
	}
	a.last = now
}

// Deadlock keeps the report of a cycle broken by failing a Lock of the
// Server (its sessions' calls failed DEADLOCK), for the view's panel.
func (r *Recorder) Deadlock(cycle []lockstep.DeadlockMember) {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deadlocks = append(r.deadlocks, DeadlockReport{At: now, Cycle: append([]lockstep.DeadlockMember(nil), cycle...)})
	if len(r.deadlocks) > recorderDeadlocks {
		r.deadlocks = r.deadlocks[1:]
	}
}

// ObserveRelease implements lockstep.Observer: a release of a lock found
// lost counts as a loss.
func (r *Recorder) ObserveRelease(_ context.Context, e lockstep.ReleaseEvent) {
	if e.WasLost {
		r.loss(e.Mode)
	}
}

// ObserveLease implements lockstep.Observer: a lease declared lost counts
// as a loss.
func (r *Recorder) ObserveLease(_ context.Context, e lockstep.LeaseEvent) {
	if e.Lost {
		r.loss(e.Mode)
	}
}

func (r *Recorder) loss(m lockstep.Mode) {
	if !m.Valid() {
		m = lockstep.ModeUnknown
	}
	now := r.now()
	r.mu.Lock()
	r.slot(now).losses[m]++
	r.mu.Unlock()
}

// pruneLocked forgets ids idle for the whole window, and if that is not
// enough, the least recently active half; r.mu is held.
func (r *Recorder) pruneLocked(now time.Time) {
	cut := now.Add(-recorderSeconds * time.Second)
	for id, a := range r.ids {
		if a.last.Before(cut) {
			delete(r.ids, id)
		}
	}
	if len(r.ids) < recorderMaxIDs {
		return
	}
	type kv struct {
		id   string
		last time.Time
	}
	all := make([]kv, 0, len(r.ids))
	for id, a := range r.ids {
		all = append(all, kv{id, a.last})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].last.Before(all[j].last) })
	for _, e := range all[:len(all)/2] {
		delete(r.ids, e.id)
	}
}

// IDActivity is how often one id was acquired and contended in the window:
// a Lock that waited 50ms or more, or a TryLock refused (ErrLocked).
type IDActivity struct {
	ID        string
	Acquired  int
	Contended int
	Last      time.Time
}

// Hottest returns the ids active in the last window (five minutes) that keep
// says to keep, busiest first (acquisitions plus contended calls, then the most recent),
// at most n.
func (r *Recorder) Hottest(n int, keep func(id string) bool) []IDActivity {
	now := r.now()
	cut := now.Add(-recorderSeconds * time.Second)
	r.mu.Lock()
	out := make([]IDActivity, 0, len(r.ids))
	for id, a := range r.ids {
		if a.last.After(cut) && keep(id) {
			out = append(out, IDActivity{ID: id, Acquired: a.acquired, Contended: a.contended, Last: a.last})
		}
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		si, sj := out[i].Acquired+out[i].Contended, out[j].Acquired+out[j].Contended
		if si != sj {
			return si > sj
		}
		if !out[i].Last.Equal(out[j].Last) {
			return out[i].Last.After(out[j].Last)
		}
		return out[i].ID < out[j].ID
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// Deadlocks returns the deadlock reports of the last window that keep says
// to keep, newest first.
func (r *Recorder) Deadlocks(keep func(DeadlockReport) bool) []DeadlockReport {
	cut := r.now().Add(-recorderSeconds * time.Second)
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []DeadlockReport
	for i := len(r.deadlocks) - 1; i >= 0; i-- {
		if d := r.deadlocks[i]; d.At.After(cut) && keep(d) {
			out = append(out, d)
		}
	}
	return out
}

// Point is one second of the charts, for one mode.
type Point struct {
	Unix     int64
	Acquired int           // acquisitions in the second
	Losses   int           // leases lost in the second
	P50, P99 time.Duration // waits of the second's blocking acquisitions; 0 without any
}

// Series returns the last seconds (at most the window; the current second,
// still filling, left out) of mode m, oldest first; a second without events
// is a Point of zeros.
func (r *Recorder) Series(m lockstep.Mode, seconds int) []Point {
	seconds = min(max(seconds, 1), recorderSeconds-1)
	end := r.now().Unix()
	out := make([]Point, 0, seconds)
	r.mu.Lock()
	defer r.mu.Unlock()
	for u := end - int64(seconds); u < end; u++ {
		p := Point{Unix: u}
		if s := &r.seconds[u%recorderSeconds]; s.unix == u {
			p.Acquired, p.Losses = s.acquired[m], s.losses[m]
			p.P50, p.P99 = percentile(s.waits[m], 0.50), percentile(s.waits[m], 0.99)
		}
		out = append(out, p)
	}
	return out
}

// percentile returns the q-quantile of ds (nearest rank), 0 for none.
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// Observers returns an Observer that passes each event to every non-nil one
// of obs, in order.
func Observers(obs ...lockstep.Observer) lockstep.Observer {
	var keep teeObserver
	for _, o := range obs {
		if o != nil {
			keep = append(keep, o)
		}
	}
	return keep
}

type teeObserver []lockstep.Observer

func (t teeObserver) ObserveAcquire(ctx context.Context, e lockstep.AcquireEvent) {
	for _, o := range t {
		o.ObserveAcquire(ctx, e)
	}
}

func (t teeObserver) ObserveRelease(ctx context.Context, e lockstep.ReleaseEvent) {
	for _, o := range t {
		o.ObserveRelease(ctx, e)
	}
}

func (t teeObserver) ObserveLease(ctx context.Context, e lockstep.LeaseEvent) {
	for _, o := range t {
		o.ObserveLease(ctx, e)
	}
}

// ObserveWake passes e to the Observers that take wake events
// (lockstep.WakeObserver).
func (t teeObserver) ObserveWake(ctx context.Context, e lockstep.WakeEvent) {
	for _, o := range t {
		if w, ok := o.(lockstep.WakeObserver); ok {
			w.ObserveWake(ctx, e)
		}
	}
}
