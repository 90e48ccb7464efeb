package election

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
)

// The election's model check: candidates on the simulated quorum cluster
// (model/sim) campaign, lead a few steps checking Done, resign, and campaign
// again, while rapid drives the schedule and the faults propertytests uses:
// clock skews and steps, replica skews, pauses beyond the TTL, crashes,
// slow, lost and timed-out requests. After every action it checks:
//
//   - terms: each leader's term is above every earlier leader's;
//   - tenure: no two leaders see Done open at once (a leader's tenure, from
//     Campaign's return to Done closing or Resign, as that leader sees it,
//     never overlaps another's);
//   - observers: an observer's Observe never reports a term below one it
//     reported before.
//
// Rounds of a random phase alternate with a fault-free, fair quiet phase in
// which someone must lead. A plain go test runs 30 rapid checks (about a
// second); LOCKSTEP_DEEP=1 runs 400, and -rapid.checks overrides both.

const (
	clientSkew    = 250 * time.Millisecond
	replicaSkew   = 250 * time.Millisecond
	maxServerSkew = 2 * replicaSkew
	leadSteps     = 2
	leadStep      = time.Second
	think         = 100 * time.Millisecond
	electionID    = "E"
)

// lockTTL is the smallest TTL the queue lock accepts with the skews above:
// the lease window is tightest there.
var lockTTL = func() time.Duration {
	s := model.New(model.NewManualClock(0))
	for ttl := time.Second; ; ttl += time.Second {
		if _, err := queuelock.New(s, &queuelock.Options{TTL: ttl, MaxServerSkew: maxServerSkew, MaxClockSkew: 2 * clientSkew}); err == nil {
			return ttl
		}
	}
}()

// cand is one simulated candidate process.
type cand struct {
	sp *sim.Process
	lk *queuelock.Locker
	e  *Election
	// guarded by elHarness.mu
	lead *Leadership // the tenure its user goroutine is in, nil between
}

// elHarness is one run of the election check.
type elHarness struct {
	s      *sim.Sim
	cands  []*cand
	obs    *sim.Process
	closer []func()

	mu         sync.Mutex
	lastTerm   int64 // the latest winner's term
	wins       int
	observed   int64 // the highest term Observe reported
	violations []string
	trace      []string
}

func newElHarness(knobs *TestingKnobs, candidates int) (*elHarness, error) {
	h := &elHarness{s: sim.New(sim.Config{})}
	for i := range candidates {
		sp := h.s.AddProcess(fmt.Sprintf("c%d", i))
		global, err := clock.NewGlobal(sp.Store(), "", sp.Clock())
		if err != nil {
			return nil, err
		}
		lk, err := queuelock.New(sp.Store(), &queuelock.Options{TTL: lockTTL, MaxServerSkew: maxServerSkew, MaxClockSkew: 2 * clientSkew,
			Poll: 500 * time.Millisecond, Clock: sp.Clock(), ProcessID: sp.Name, Rand: rand.New(rand.NewPCG(1, uint64(i))), Fencing: global})
		if err != nil {
			return nil, err
		}
		h.closer = append(h.closer, func() { _ = lk.Close(context.Background()) })
		e, err := New(lk, sp.Store(), electionID, &Options{TTL: 6 * time.Second, Poll: 500 * time.Millisecond, Clock: sp.Clock(), TestingKnobs: knobs})
		if err != nil {
			return nil, err
		}
		c := &cand{sp: sp, lk: lk, e: e}
		h.cands = append(h.cands, c)
		sp.Go(func(ctx context.Context) { h.candidate(ctx, c) })
	}
	h.obs = h.s.AddProcess("observer")
	e, err := New(nil, h.obs.Store(), electionID, &Options{Poll: time.Second, Clock: h.obs.Clock()})
	if err != nil {
		return nil, err
	}
	h.obs.Go(func(ctx context.Context) { h.observer(ctx, e) })
	h.s.Settle()
	return h, nil
}

// candidate campaigns, leads leadSteps steps checking Done before each,
// resigns, thinks and campaigns again, until its process crashes.
func (h *elHarness) candidate(ctx context.Context, c *cand) {
	clk := c.sp.Clock()
	for ctx.Err() == nil {
		ld, err := c.e.Campaign(ctx, c.sp.Name)
		if err != nil {
			if clk.Sleep(ctx, think) != nil {
				return
			}
			continue
		}
		h.won(c, ld)
		for range leadSteps {
			if isDone(ld) {
				break
			}
			if clk.Sleep(ctx, leadStep) != nil {
				return // crashed while leading
			}
		}
		h.ended(c)
		_ = ld.Resign(context.WithoutCancel(ctx))
		if clk.Sleep(ctx, think) != nil {
			return
		}
	}
}

// observer follows the leader with Observe until its process crashes.
func (h *elHarness) observer(ctx context.Context, e *Election) {
	for ld := range e.Observe(ctx) {
		lifecycle.Resumed(ctx, h.obs.Clock()) // woken by Observe's goroutine
		h.mu.Lock()
		h.event("observer sees %q term %d", ld.Value, ld.Term)
		if ld.Term != 0 && ld.Term < h.observed {
			h.violate("observe: term %d reported after term %d", ld.Term, h.observed)
		}
		h.observed = max(h.observed, ld.Term)
		h.mu.Unlock()
	}
}

func isDone(ld *Leadership) bool {
	select {
	case <-ld.Done():
		return true
	default:
		return false
	}
}

// won records c's win and checks the term and that no other tenure is open.
func (h *elHarness) won(c *cand, ld *Leadership) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.event("%s leads, term %d", c.sp.Name, ld.Term())
	if isDone(ld) {
		return // lost already: it never leads, and knows it
	}
	if ld.Term() <= h.lastTerm {
		h.violate("terms: %s leads with term %d, not above the previous leader's %d", c.sp.Name, ld.Term(), h.lastTerm)
	}
	h.lastTerm = ld.Term()
	h.wins++
	c.lead = ld
	h.checkTenuresLocked()
}

func (h *elHarness) ended(c *cand) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.event("%s ends its tenure", c.sp.Name)
	c.lead = nil
}

// checkTenuresLocked records a violation if two live candidates see their
// Done open at once.
func (h *elHarness) checkTenuresLocked() {
	var open []string
	for _, c := range h.cands {
		if c.lead != nil && !c.sp.Crashed() && !isDone(c.lead) {
			open = append(open, fmt.Sprintf("%s (term %d)", c.sp.Name, c.lead.Term()))
		}
	}
	if len(open) > 1 {
		h.violate("tenure: %d leaders with Done open at once: %v", len(open), open)
	}
}

func (h *elHarness) check() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.checkTenuresLocked()
	if len(h.violations) > 0 {
		return errors.New(h.violations[0])
	}
	return nil
}

func (h *elHarness) violate(format string, args ...any) {
	h.violations = append(h.violations, fmt.Sprintf(format, args...))
}

func (h *elHarness) event(format string, args ...any) {
	h.trace = append(h.trace, fmt.Sprintf("%8.3fs ", float64(h.s.Now()-model.DefaultStart)/1e6)+fmt.Sprintf(format, args...))
	if len(h.trace) > 60 {
		h.trace = h.trace[len(h.trace)-40:]
	}
}

// close crashes every process so the bubble can end, then closes the
// Lockers as an owner shutting down would.
func (h *elHarness) close() {
	h.s.Close()
	for _, c := range h.closer {
		c()
	}
	h.s.Settle()
}

// electionProperty is one rapid check: rounds of a random phase, safety
// checked after every action, and a quiet phase in which someone must lead.
func electionProperty(tt *testing.T, knobs *TestingKnobs, wins *int) func(*rapid.T) {
	return func(t *rapid.T) {
		var failure string
		var drawPanic any // rapid's own panics (an overrun) belong on its goroutine
		synctest.Test(tt, func(*testing.T) {
			defer func() { drawPanic = recover() }()
			h, err := newElHarness(knobs, 3)
			if err != nil {
				failure = err.Error()
				return
			}
			defer h.close()
			slot := rapid.IntRange(0, len(actSlots)-1)
			ch := chooser{t}
			fail := func(err error) {
				h.mu.Lock()
				defer h.mu.Unlock()
				failure = fmt.Sprintf("%v\ntrace:\n%s", err, strings.Join(h.trace, "\n"))
			}
			for range rapid.IntRange(1, 3).Draw(t, "rounds") {
				for range rapid.IntRange(0, 100).Draw(t, "actions") {
					h.act(ch, actSlots[slot.Draw(t, "action")])
					if err := h.check(); err != nil {
						fail(err)
						return
					}
				}
				if err := h.quietPhase(); err != nil {
					fail(err)
					return
				}
			}
			*wins += h.wins
		})
		if drawPanic != nil {
			panic(drawPanic)
		}
		if failure != "" {
			t.Fatal(failure)
		}
	}
}

// quickChecks is the number of rapid checks of a plain go test, unless
// -rapid.checks says otherwise.
const quickChecks = 30

// checks sets -rapid.checks to n for one test if the user left it at its
// default, and returns the function restoring it.
func checks(t *testing.T, n int) func() { return rapidDefault(t, "rapid.checks", strconv.Itoa(n)) }

// rapidDefault sets rapid's flag name to value for one test if the user left
// it at its default, and returns the function restoring it.
func rapidDefault(t *testing.T, name, value string) func() {
	f := flag.Lookup(name)
	old := f.Value.String()
	if old != f.DefValue {
		return func() {}
	}
	if err := f.Value.Set(value); err != nil {
		t.Fatal(err)
	}
	return func() { _ = f.Value.Set(old) }
}

// deepChecks is the number under LOCKSTEP_DEEP=1, CI's depth.
const deepChecks = 400

func TestElection_TermsIncreaseAndTenuresNeverOverlap(t *testing.T) {
	n := quickChecks
	if os.Getenv("LOCKSTEP_DEEP") == "1" {
		n = deepChecks
	}
	defer checks(t, n)()
	wins := 0
	rapid.Check(t, electionProperty(t, nil, &wins))
	if wins == 0 {
		t.Fatal("no candidate ever led: the check checked nothing")
	}
	t.Logf("%d tenures checked", wins)
}
