package propertytests

import (
	"bytes"
	"context"
	"math/rand/v2"
	"sync"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/wakeup"
)

// The wake-up channel of the simulated fleets (queuelock.Options.Wake). Its
// datagrams stay in flight until the random phase's net action delivers one
// (any one: reordered), delivers a copy and keeps it (duplicated) or drops
// one (lost), or until time passes (a tick), when all in flight arrive
// (delayed by however many steps came between); the net action also forges
// wake-ups, with a wrong key (which must be refused) and with the fleet's
// key (a peer holding the key sending them at any moment: authentication
// cannot help there, and safety and the bypass bound must not need it —
// but a forged wake-up never claims to be a grant: with Handoff the key is
// a safety credential, docs/algorithms.md section 4.12). In
// the quiet phase either every wake-up is lost, so its liveness check is
// the progress property (waiters get the lock by their polls alone), or
// each arrives at once, so that genuine wake-ups meet the safety checks.

// wakeKey is the fleets' shared wake-up key.
var wakeKey = bytes.Repeat([]byte{0x5a}, wakeup.MinKeyBytes)

type datagram struct {
	to string
	b  []byte
}

// wakeNet is one harness's wake-up network. Sends come from simulated
// goroutines; deliveries from the test's goroutine.
type wakeNet struct {
	mu       sync.Mutex
	handlers map[string]func([]byte)
	flight   []datagram
	lose     bool // the quiet phase: every datagram lost
	// onSend sees every datagram sent (property H3, handoff_test.go).
	onSend func(b []byte)
	// arriveInQuiet makes the quiet phase deliver each wake-up at once
	// instead of losing them all (runFleet draws it).
	arriveInQuiet bool
	wakeStats
}

// wakeStats count what happened on a wake-up network.
type wakeStats struct {
	sent, delivered, duplicated, lost, forged, forgedSigned int
}

func (s *wakeStats) add(o wakeStats) {
	s.sent += o.sent
	s.delivered += o.delivered
	s.duplicated += o.duplicated
	s.lost += o.lost
	s.forged += o.forged
	s.forgedSigned += o.forgedSigned
}

func (n *wakeNet) stats() wakeStats {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.wakeStats
}

func newWakeNet() *wakeNet { return &wakeNet{handlers: map[string]func([]byte){}} }

// transport returns the Transport of the process at addr.
func (n *wakeNet) transport(addr string) wakeup.Transport { return simTransport{n, addr} }

type simTransport struct {
	n    *wakeNet
	addr string
}

func (t simTransport) Addr() string { return t.addr }

func (t simTransport) Send(addr string, b []byte) error {
	t.n.mu.Lock()
	t.n.sent++
	if !t.n.lose {
		t.n.flight = append(t.n.flight, datagram{addr, bytes.Clone(b)})
	}
	onSend := t.n.onSend
	t.n.mu.Unlock()
	if onSend != nil {
		onSend(b)
	}
	return nil
}

func (t simTransport) Handle(f func([]byte)) {
	t.n.mu.Lock()
	t.n.handlers[t.addr] = f
	t.n.mu.Unlock()
}

// deliver hands d to its receiver.
func (n *wakeNet) deliver(d datagram) {
	n.mu.Lock()
	h := n.handlers[d.to]
	n.mu.Unlock()
	if h != nil {
		h(d.b)
	}
}

// loseAll drops what is in flight and everything sent from now on.
func (n *wakeNet) loseAll() {
	n.mu.Lock()
	n.lose, n.flight = true, nil
	n.mu.Unlock()
}

// queueWake is the queue lock with wake-ups on release over the harness's
// wake-up network; SlowPoll is left at its default (TTL/4 here).
var queueWake = kind{name: "new+wake", mode: lockstep.ModeNew, newWake: func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs, n *wakeNet) (lockstep.Locker, func(context.Context) error, error) {
	l, err := queuelock.New(p.Store(), &queuelock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Poll: poll, MaxClockSkew: maxClockSkew,
		Clock: k.clock(p.Clock()), ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), Fencing: fencing,
		Wake: &queuelock.Wake{Transport: n.transport(p.Name), Key: wakeKey}, TestingKnobs: k.queue})
	if err != nil {
		return nil, nil, err
	}
	return l, l.Close, nil
}}

// queueHandoff is queueWake with the handoff on
// (queuelock.Options.Handoff).
var queueHandoff = kind{name: "new+handoff", mode: lockstep.ModeNew, newWake: func(p *sim.Process, seed uint64, fencing *clock.Global, k knobs, n *wakeNet) (lockstep.Locker, func(context.Context) error, error) {
	l, err := queuelock.New(p.Store(), &queuelock.Options{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Poll: poll, MaxClockSkew: maxClockSkew,
		Clock: k.clock(p.Clock()), ProcessID: p.Name, Rand: rand.New(rand.NewPCG(seed, uint64(p.Index))), Fencing: fencing,
		Wake: &queuelock.Wake{Transport: n.transport(p.Name), Key: wakeKey}, Handoff: true, TestingKnobs: k.queue})
	if err != nil {
		return nil, nil, err
	}
	return l, l.Close, nil
}}

// wakeAct is the net action on the wake-up network: deliver, duplicate or
// drop a datagram in flight (any one, so reordered), or forge one.
func (h *harness) wakeAct(ch sim.Chooser) bool {
	n := h.wake
	n.mu.Lock()
	inFlight := len(n.flight)
	n.mu.Unlock()
	switch op := ch.Choose("wake", 5); {
	case op <= 2:
		if inFlight == 0 {
			return false
		}
		k := ch.Choose("datagram", inFlight)
		n.mu.Lock()
		d := n.flight[k]
		if op != 1 {
			n.flight = append(n.flight[:k], n.flight[k+1:]...)
		}
		n.mu.Unlock()
		n.mu.Lock()
		switch op {
		case 0:
			n.delivered++
		case 1:
			n.duplicated++
		case 2:
			n.lost++
		}
		n.mu.Unlock()
		if op == 2 {
			h.event("wake-up %d to %s lost", k, d.to)
			return true
		}
		h.event("wake-up %d to %s delivered%s", k, d.to, map[bool]string{true: " (a copy kept: duplicated)"}[op == 1])
		n.deliver(d)
	default:
		return h.forgeWake(ch, op == 4)
	}
	h.s.Settle()
	return true
}

// wakeArrive delivers every wake-up in flight, in the order sent.
func (h *harness) wakeArrive() {
	n := h.wake
	n.mu.Lock()
	flight := n.flight
	n.flight = nil
	n.delivered += len(flight)
	n.mu.Unlock()
	for _, d := range flight {
		n.deliver(d)
	}
	if len(flight) > 0 {
		h.event("%d wake-ups arrived", len(flight))
		h.s.Settle()
	}
}

// forgeWake sends a wake-up nobody released for to a waiter whose queue
// cell (with its wake address) replica 0 holds: sealed with the fleet's key
// (signed) or with another.
func (h *harness) forgeWake(ch sim.Chooser, signed bool) bool {
	cells, err := h.s.Cluster().Replica(0).Read(context.Background(), queuelock.DefaultTable, lockID, layout.QueueSlice(0))
	if err != nil {
		return false
	}
	var waiters []layout.Entry
	for _, c := range cells {
		if e, err := layout.Parse(c.Column, c.Value); err == nil && e.Kind == layout.Queue && e.Wake != "" {
			waiters = append(waiters, e)
		}
	}
	if len(waiters) == 0 {
		return false
	}
	e := waiters[ch.Choose("waiter", len(waiters))]
	key := wakeKey
	if !signed {
		key = bytes.Repeat([]byte{0x77}, wakeup.MinKeyBytes)
	}
	b, err := wakeup.Seal(key, wakeup.Message{Table: queuelock.DefaultTable, ID: lockID, From: "forger", To: e.Column,
		Sender: "forger", Sent: h.s.Now()})
	if err != nil {
		panic(err)
	}
	h.event("forged wake-up (signed %v) to %s", signed, e.Column)
	h.wake.mu.Lock()
	if signed {
		h.wake.forgedSigned++
	} else {
		h.wake.forged++
	}
	h.wake.mu.Unlock()
	h.wake.deliver(datagram{e.Wake, b})
	h.s.Settle()
	return true
}
