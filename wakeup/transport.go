package wakeup

import (
	"errors"
	"fmt"
	"net"
	"sync"
)

// Transport moves sealed wake-ups between processes. Implementations must be
// safe for concurrent use.
type Transport interface {
	// Addr is where other processes send this one's wake-ups; it is
	// published in the queue cells of this process's waiters.
	Addr() string
	// Send sends datagram b to addr, best effort and without blocking on
	// the receiver: a lost wake-up only costs latency.
	Send(addr string, b []byte) error
	// Handle sets the function every received datagram is given to, in
	// the order received, on one goroutine; nil discards them. A Locker
	// calls it once, when built: give each Locker a Transport of its own.
	Handle(func(b []byte))
}

// UDP is a Transport over one UDP socket. Safe for concurrent use; Close
// stops its receiving goroutine and waits for it.
type UDP struct {
	conn      *net.UDPConn
	advertise string

	mu      sync.Mutex
	handler func([]byte)
	dests   map[string]*net.UDPAddr

	done chan struct{}
}

// ListenUDP opens a UDP socket on listen ("host:port"; port 0 picks one)
// and starts receiving. advertise is the address published to other
// processes; empty means the socket's own address, which is right only
// when listen names an address the others can reach (not 0.0.0.0).
func ListenUDP(listen, advertise string) (*UDP, error) {
	la, err := net.ResolveUDPAddr("udp", listen)
	if err != nil {
		return nil, fmt.Errorf("wakeup: listen address %q: %w (want host:port)", listen, err)
	}
	conn, err := net.ListenUDP("udp", la)
	if err != nil {
		return nil, fmt.Errorf("wakeup: %w", err)
	}
	if advertise == "" {
		advertise = conn.LocalAddr().String()
	}
	u := &UDP{conn: conn, advertise: advertise, dests: map[string]*net.UDPAddr{}, done: make(chan struct{})}
	go u.receive()
	return u, nil
}

// Addr returns the advertised address.
func (u *UDP) Addr() string { return u.advertise }

// Handle sets the receiving function.
func (u *UDP) Handle(f func([]byte)) {
	u.mu.Lock()
	u.handler = f
	u.mu.Unlock()
}

// Send writes b to addr in one datagram.
func (u *UDP) Send(addr string, b []byte) error {
	u.mu.Lock()
	ua, ok := u.dests[addr]
	u.mu.Unlock()
	if !ok {
		var err error
		if ua, err = net.ResolveUDPAddr("udp", addr); err != nil {
			return fmt.Errorf("wakeup: send to %q: %w", addr, err)
		}
		u.mu.Lock()
		if len(u.dests) > 4096 { // a bounded cache, not a registry of peers
			clear(u.dests)
		}
		u.dests[addr] = ua
		u.mu.Unlock()
	}
	_, err := u.conn.WriteToUDP(b, ua)
	return err
}

func (u *UDP) receive() {
	defer close(u.done)
	buf := make([]byte, MaxDatagram+1)
	for {
		n, _, err := u.conn.ReadFromUDP(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		if n > MaxDatagram {
			continue
		}
		u.mu.Lock()
		h := u.handler
		u.mu.Unlock()
		if h != nil {
			h(append([]byte(nil), buf[:n]...))
		}
	}
}

// Close closes the socket and waits for the receiving goroutine.
func (u *UDP) Close() error {
	err := u.conn.Close()
	<-u.done
	return err
}
