package sim

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// A label names a simulated goroutine by its place in its process's tree of
// goroutines: [i] is the i-th goroutine the test started with Process.Go,
// and label+[j] the j-th goroutine that one started through the clock
// (internal/lifecycle.Go). The program's own order of events makes it, not
// the Go runtime, so the scheduler orders yields by label.
type label []int32

func (l label) String() string {
	var b strings.Builder
	for i, n := range l {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strconv.Itoa(int(n)))
	}
	return b.String()
}

// thread is what the simulator knows of one simulated goroutine.
type thread struct {
	label    label
	children int32
}

// goid returns the runtime's id of the calling goroutine. It is used only as
// a map key within one run, never to order anything.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = b[len("goroutine "):]
	var id uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

// enter records the calling goroutine as l. Call it first thing on the new
// goroutine.
func (p *Process) enter(l label) {
	s := p.s
	s.mu.Lock()
	s.threads[goid()] = &thread{label: l}
	s.mu.Unlock()
}

// exit forgets the calling goroutine.
func (p *Process) exit() {
	s := p.s
	s.mu.Lock()
	delete(s.threads, goid())
	s.mu.Unlock()
}

// selfLocked returns the calling goroutine's label. A goroutine that was
// started neither by Process.Go nor through the clock cannot be ordered:
// that is a bug of the code under test, reported at once (after s.mu is
// released). Call with s.mu held.
func (s *Sim) selfLocked() label {
	th, ok := s.threads[goid()]
	if !ok {
		s.mu.Unlock()
		var buf [2048]byte
		panic(fmt.Sprintf("sim: a goroutine that neither Process.Go nor internal/lifecycle.Go started reached a yield point; start it through the process's clock:\n%s",
			buf[:runtime.Stack(buf[:], false)]))
	}
	return th.label
}

// Go starts f on a new goroutine of the process, named after the calling
// goroutine (internal/lifecycle.Go), or as a new root goroutine when the
// scheduler's goroutine calls it (closing a Locker at the end of a run).
// The goroutine first waits at a Start yield, so it runs only when the
// scheduler grants it, alone. If the process crashed, f still runs, and its
// every yield fails with ErrKilled.
func (c procClock) Go(f func()) {
	p := c.p
	s := p.s
	s.mu.Lock()
	var l label
	if parent, ok := s.threads[goid()]; ok {
		l = append(slices.Clip(parent.label), parent.children)
		parent.children++
	} else {
		l = label{p.roots}
		p.roots++
	}
	s.mu.Unlock()
	go func() {
		p.enter(l)
		defer p.exit()
		p.block(p.ctx, &Yield{Kind: Start})
		f()
	}()
}

// Resumed is a yield point for a goroutine that another goroutine of the
// process woke (internal/lifecycle.Resumed): it goes on when the scheduler
// grants it, so the two never run side by side.
func (c procClock) Resumed(ctx context.Context) {
	c.p.block(context.WithoutCancel(ctx), &Yield{Kind: Resume})
}
