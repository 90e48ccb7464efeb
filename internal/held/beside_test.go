package held

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
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

func (p *fakePrepared) Go() (Result, error) { p.note("go"); return Result{}, nil }
func (p *fakePrepared) Abort()              { p.note("abort") }
func (p *fakePrepared) Wait()               { p.note("wait") }

func newTestBeside() (*Beside, *[]string) {
	var log []string
	var mu sync.Mutex
	n := 0
	prepare := func(_ context.Context, r Request) Prepared {
		n++
		p := &fakePrepared{name: r.ID + string(rune('0'+n)), log: &log, mu: &mu}
		p.note("prepare")
		return p
	}
	return NewBeside(context.Background(), prepare, Request{ID: "a"}), &log
}

func TestBeside_NilStartsNothing(t *testing.T) {
	var b *Beside
	b.Claiming()(false)
	assert.Nil(t, b.End(true))
}

func TestBeside_LostClaimIsAbortedAndAwaitedBeforeTheNext(t *testing.T) {
	b, log := newTestBeside()
	b.Claiming()(false)
	settled := b.Claiming()
	settled(true)
	p := b.End(true)
	assert.Equal(t, []string{"prepare a1", "abort a1", "wait a1", "prepare a2"}, *log)
	assert.Equal(t, "a2", p.(*fakePrepared).name, "the won claim's part goes on")
}

func TestBeside_WonClaimGivenUpIsAbortedAtTheNextClaim(t *testing.T) {
	b, log := newTestBeside()
	b.Claiming()(true) // won, then the part gave it up (a token draw failed)
	b.Claiming()(true)
	assert.Equal(t, []string{"prepare a1", "abort a1", "wait a1", "prepare a2"}, *log)
}

func TestBeside_EndWithoutThePartAbortsAndWaits(t *testing.T) {
	b, log := newTestBeside()
	b.Claiming()(true)
	assert.Nil(t, b.End(false))
	assert.Equal(t, []string{"prepare a1", "abort a1", "wait a1"}, *log)
}
