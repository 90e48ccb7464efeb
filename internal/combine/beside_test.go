package combine

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/held"
)

// fakePrepared logs what is done to it.
type fakePrepared struct {
	name string
	log  *[]string
	mu   *sync.Mutex
}

func (p *fakePrepared) note(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	*p.log = append(*p.log, s+" "+p.name)
}

func (p *fakePrepared) Go() (held.Result, error) { p.note("go"); return held.Result{}, nil }
func (p *fakePrepared) Abort()                   { p.note("abort") }
func (p *fakePrepared) Wait()                    { p.note("wait") }

// newTestBeside returns a beside whose goroutine runs, preparing fakes.
func newTestBeside() (*beside, *[]string) {
	var log []string
	var mu sync.Mutex
	n := 0
	prepare := func(_ context.Context, r held.Request) held.Prepared {
		n++
		p := &fakePrepared{name: r.ID + string(rune('0'+n)), log: &log, mu: &mu}
		p.note("prepare")
		return p
	}
	return startBeside(context.Background(), held.Request{ID: "a"}, prepare, &clock.Local{}), &log
}

func TestBeside_NilStartsNothing(t *testing.T) {
	var b *beside
	assert.Nil(t, b.End(true))
}

func TestBeside_LostClaimIsAbortedAndAwaitedBeforeTheNext(t *testing.T) {
	b, log := newTestBeside()
	b.claims.Claiming()(false)
	settled := b.claims.Claiming()
	settled(true)
	p := b.End(true)
	assert.Equal(t, []string{"prepare a1", "abort a1", "wait a1", "prepare a2"}, *log)
	assert.Equal(t, "a2", p.(*fakePrepared).name, "the won claim's part goes on")
}

func TestBeside_WonClaimGivenUpIsAbortedAtTheNextClaim(t *testing.T) {
	b, log := newTestBeside()
	b.claims.Claiming()(true) // won, then the part gave it up (a token draw failed)
	b.claims.Claiming()(true)
	b.End(true)
	assert.Equal(t, []string{"prepare a1", "abort a1", "wait a1", "prepare a2"}, *log)
}

func TestBeside_EndWithoutThePartAbortsAndWaits(t *testing.T) {
	b, log := newTestBeside()
	b.claims.Claiming()(true)
	assert.Nil(t, b.End(false))
	assert.Equal(t, []string{"prepare a1", "abort a1", "wait a1"}, *log)
}

func TestBeside_EndWithNoClaimPreparesNothing(t *testing.T) {
	b, log := newTestBeside()
	assert.Nil(t, b.End(true))
	assert.Empty(t, *log)
}
