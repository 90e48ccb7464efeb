package main

import (
	"errors"
	"net"
	"sync"
	"time"
)

// proxy forwards TCP connections from one lockd client to its lockd, and
// can stop forwarding (Cut) as a dead link would: connections stay open,
// bytes and closes in either direction wait in the proxy (and in the
// kernel's buffers behind it) until Restore. A connection opened while cut
// is accepted and dialled through, and waits the same way. A lockd that
// dies closes its connections; the proxy closes the client's side in turn,
// so the client sees what it would see without the proxy — unless cut.
type proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	cond   *sync.Cond
	cut    bool
	closed bool
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// newProxy listens on a free loopback port and forwards to target.
func newProxy(target string) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.cond = sync.NewCond(&p.mu)
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

// Addr is the address clients dial.
func (p *proxy) Addr() string { return p.ln.Addr().String() }

// Cut stops forwarding; Restore forwards again what waited and what follows.
func (p *proxy) Cut() {
	p.mu.Lock()
	p.cut = true
	p.mu.Unlock()
}

func (p *proxy) Restore() {
	p.mu.Lock()
	p.cut = false
	p.cond.Broadcast()
	p.mu.Unlock()
}

// Close stops listening, closes every connection and waits for the
// forwarding goroutines.
func (p *proxy) Close() {
	p.mu.Lock()
	p.closed = true
	p.cond.Broadcast()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.ln.Close()
	p.wg.Wait()
}

func (p *proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		p.wg.Add(1)
		go p.forward(c)
	}
}

// track adds c to the open connections, or refuses it once closed.
func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// forward dials the target for client connection c and copies both ways.
// A target that refuses (a killed lockd) closes c at once — after the cut,
// if there is one, as everything else.
func (p *proxy) forward(c net.Conn) {
	defer p.wg.Done()
	if !p.track(c) {
		return
	}
	defer p.untrack(c)
	up, err := net.DialTimeout("tcp", p.target, 2*time.Second)
	if err != nil {
		p.gate()
		c.Close()
		return
	}
	if !p.track(up) {
		c.Close()
		return
	}
	defer p.untrack(up)
	done := make(chan struct{})
	go func() { p.pipe(up, c); close(done) }()
	p.pipe(c, up)
	<-done
}

// pipe copies src to dst, waiting at the gate before each write and before
// passing on the end of src; then it closes both.
func (p *proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.gate() {
				break
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			p.gate()
			break
		}
	}
	dst.Close()
	src.Close()
}

// gate waits while the proxy is cut; false once it is closed.
func (p *proxy) gate() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.cut && !p.closed {
		p.cond.Wait()
	}
	return !p.closed
}
