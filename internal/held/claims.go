package held

import "sync"

// Claims is how a part tells its composer of its claims without calling
// it: package combined runs the legacy half's first round beside each claim
// of the queue half (docs/algorithms.md, section 6.1). The queue part calls
// Claiming as each claim's write is about to be sent, and the function it
// returns with the claim's outcome (won: the claim holds the lock). Both
// only note it and return at once; the composer reads the notes (Noted,
// Notes) on a goroutine of its own, and no function of an algorithm is
// called from here. Safe for concurrent use; a nil *Claims notes nothing.
type Claims struct {
	wake chan struct{} // one value: notes may be waiting

	mu    sync.Mutex
	n     int // claims noted so far
	notes []ClaimNote
}

// ClaimNote is one thing a part said of its claims: claim number Claim
// (from 1) is about to be sent (Settled false), or it ended, Won or not.
type ClaimNote struct {
	Claim   int
	Settled bool
	Won     bool
}

// NewClaims returns an empty Claims.
func NewClaims() *Claims { return &Claims{wake: make(chan struct{}, 1)} }

// Claiming notes that a claim's write is about to be sent; call the
// function it returns once, with the claim's outcome.
func (c *Claims) Claiming() (settled func(won bool)) {
	if c == nil {
		return func(bool) {}
	}
	c.mu.Lock()
	c.n++
	k := c.n
	c.mu.Unlock()
	c.note(ClaimNote{Claim: k})
	return func(won bool) { c.note(ClaimNote{Claim: k, Settled: true, Won: won}) }
}

func (c *Claims) note(n ClaimNote) {
	c.mu.Lock()
	c.notes = append(c.notes, n)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// Noted receives a value when notes may be waiting.
func (c *Claims) Noted() <-chan struct{} { return c.wake }

// Notes returns the notes made since the last call, in order.
func (c *Claims) Notes() []ClaimNote {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.notes
	c.notes = nil
	return out
}
