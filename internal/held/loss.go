package held

import (
	"math"
	"sync"
	"time"
)

// Loss is one acquisition's loss signal. The zero value is not usable; use
// NewLoss. Safe for concurrent use.
type Loss struct {
	once sync.Once
	ch   chan struct{}

	mu     sync.Mutex
	checks []func() time.Duration
	fired  bool
	then   []func() // run once, when the signal closes (OnFire)
}

// NewLoss returns a Loss not yet fired.
func NewLoss() *Loss { return &Loss{ch: make(chan struct{})} }

// Fire closes the signal and runs the functions OnFire registered; later
// calls do nothing.
func (l *Loss) Fire() {
	l.once.Do(func() {
		close(l.ch)
		l.mu.Lock()
		then := l.then
		l.then, l.fired = nil, true
		l.mu.Unlock()
		for _, f := range then {
			f()
		}
	})
}

// OnFire makes f run when the signal closes (at once, if it already has):
// a lock made of other locks (a group) forwards each member's loss to its
// own this way, with no goroutine. f must not block.
func (l *Loss) OnFire(f func()) {
	l.mu.Lock()
	if !l.fired {
		l.then = append(l.then, f)
		l.mu.Unlock()
		return
	}
	l.mu.Unlock()
	f()
}

// Watch adds a source: remaining returns how long that source's deadline
// is still ahead (0 or less once it has passed; it may declare its own
// loss, which is expected to Fire this Loss). C and Remaining run every
// source.
func (l *Loss) Watch(remaining func() time.Duration) {
	l.mu.Lock()
	l.checks = append(l.checks, remaining)
	l.mu.Unlock()
}

// C returns the channel that is closed on loss, first running every
// source's deadline check, so that a deadline passed is seen even before
// any goroutine has noticed it.
func (l *Loss) C() <-chan struct{} {
	l.Remaining()
	return l.ch
}

// Remaining returns how long the acquisition stays valid if no source
// renews from now on: the least time left of its sources, or 0 once the
// signal is closed (it fires the signal when a source's deadline passed).
// A Loss with no source has no deadline of its own: NoBound.
func (l *Loss) Remaining() time.Duration {
	select {
	case <-l.ch:
		return 0
	default:
	}
	l.mu.Lock()
	checks := l.checks
	l.mu.Unlock()
	least := NoBound
	for _, c := range checks {
		left := c()
		if left <= 0 {
			l.Fire()
			return 0
		}
		least = min(least, left)
	}
	return least
}

// NoBound is what Remaining returns for a Loss no source bounds: only its
// Fire ends it.
const NoBound = time.Duration(math.MaxInt64)

// Fired reports whether the signal is closed, running the checks as C does.
func (l *Loss) Fired() bool {
	select {
	case <-l.C():
		return true
	default:
		return false
	}
}
