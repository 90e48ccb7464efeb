package held

import "sync"

// Loss is one acquisition's loss signal. The zero value is not usable; use
// NewLoss. Safe for concurrent use.
type Loss struct {
	once sync.Once
	ch   chan struct{}

	mu     sync.Mutex
	checks []func() bool
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

// Watch adds a source: check reports whether that source's deadline has
// passed (and may declare its own loss, which is expected to Fire this
// Loss). C runs every check.
func (l *Loss) Watch(check func() bool) {
	l.mu.Lock()
	l.checks = append(l.checks, check)
	l.mu.Unlock()
}

// C returns the channel that is closed on loss, first running every
// source's deadline check, so that a deadline passed is seen even before
// any goroutine has noticed it.
func (l *Loss) C() <-chan struct{} {
	select {
	case <-l.ch:
		return l.ch
	default:
	}
	l.mu.Lock()
	checks := l.checks
	l.mu.Unlock()
	for _, c := range checks {
		if c() {
			l.Fire()
			break
		}
	}
	return l.ch
}

// Fired reports whether the signal is closed, running the checks as C does.
func (l *Loss) Fired() bool {
	select {
	case <-l.C():
		return true
	default:
		return false
	}
}
