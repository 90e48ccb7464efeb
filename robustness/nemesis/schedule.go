package nemesis

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep/robustness/cluster"
)

// Kind names a nemesis family a schedule can draw.
type Kind string

const (
	KindIsolate     Kind = "isolate"
	KindBridge      Kind = "bridge"
	KindHalves      Kind = "halves"
	KindOneWay      Kind = "one-way"
	KindLoss        Kind = "loss"
	KindPauseNode   Kind = "pause-node"
	KindKillNode    Kind = "kill-node"
	KindPauseClient Kind = "pause-client"
	KindSkewBump    Kind = "skew-bump"
	KindSkewStrobe  Kind = "skew-strobe"
	KindSlow        Kind = "slow"
	// KindDCPartition cuts the two data centres apart (DCPartition); only
	// a cluster of two data centres has it (KindsFor).
	KindDCPartition Kind = "dc-partition"
)

// AllKinds is every nemesis family Schedule draws, in a fixed order. The
// lockd nemeses (LockdKinds, lockd.go) are LockdSchedule's; ParseKinds
// accepts both, and "all" is both.
var AllKinds = []Kind{KindIsolate, KindBridge, KindHalves, KindOneWay, KindLoss, KindPauseNode,
	KindKillNode, KindPauseClient, KindSkewBump, KindSkewStrobe, KindSlow, KindDCPartition}

// KindsFor parses a comma list of kinds for a cluster of dcs data centres:
// "all" is every kind such a cluster can have (dc-partition only with two),
// and a kind it cannot have is refused, saying why.
func KindsFor(dcs int, s string) ([]Kind, error) {
	ks, err := ParseKinds(s)
	if err != nil {
		return nil, err
	}
	twoDCs := dcs == 2
	var out []Kind
	for _, k := range ks {
		if k == KindDCPartition && !twoDCs {
			if s == "" || s == "all" {
				continue
			}
			return nil, fmt.Errorf("nemesis: kind %s needs a cluster of two data centres (--dcs 2)", k)
		}
		out = append(out, k)
	}
	return out, nil
}

// ParseKinds parses a comma list of kinds ("all" for every kind, the
// lockd nemeses last).
func ParseKinds(s string) ([]Kind, error) {
	every := append(append([]Kind(nil), AllKinds...), LockdKinds...)
	if s == "" || s == "all" {
		return every, nil
	}
	var ks []Kind
	for _, w := range strings.Split(s, ",") {
		k := Kind(strings.TrimSpace(w))
		ok := false
		for _, a := range every {
			ok = ok || a == k
		}
		if !ok {
			return nil, fmt.Errorf("nemesis: unknown kind %q; kinds: %v", k, every)
		}
		ks = append(ks, k)
	}
	return ks, nil
}

// Event is one planned fault: at At (from the start of its segment) inject
// Nemesis, hold it for Hold, then heal it.
type Event struct {
	At      time.Duration
	Hold    time.Duration
	Nemesis Nemesis
}

// Plan says what a schedule may do.
type Plan struct {
	Seed    uint64
	Window  time.Duration // faults start and end within [0, Window)
	Kinds   []Kind
	TTL     time.Duration                   // the workers' lock TTL: holds are sized on it
	MaxSkew time.Duration                   // largest server skew a skew event applies
	Clients func(label string) *PauseClient // a client pause on some worker
	// Start is where in the seeded order of kinds this schedule begins: a
	// run of several segments passes the previous segments' event count,
	// so the kinds keep rotating across segments.
	Start int
	// Segment numbers the schedule within a run: the events' randomness.
	Segment int
}

// Schedule draws the events of p on cluster c. The same plan gives the same
// events. Kinds are drawn round-robin from a seeded shuffle, so every kind
// of p.Kinds occurs once before any occurs twice; events follow each other
// (one fault at a time) with a gap of 1–4 s between them.
func Schedule(c *cluster.Cluster, p Plan) ([]Event, error) {
	if len(p.Kinds) == 0 {
		return nil, fmt.Errorf("nemesis: schedule with no kinds")
	}
	if p.TTL <= 0 {
		return nil, fmt.Errorf("nemesis: schedule needs the lock TTL")
	}
	// The order of kinds depends on the seed only, so segments that pass
	// Start keep rotating through one order; targets, holds and gaps depend
	// on the segment too.
	order := append([]Kind(nil), p.Kinds...)
	rand.New(rand.NewPCG(p.Seed, 0x6e656d65)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	r := rand.New(rand.NewPCG(p.Seed, 0x6576656e74^uint64(p.Segment)))
	var evs []Event
	at := time.Duration(1+r.IntN(3)) * time.Second
	for i := 0; ; i++ {
		k := order[(p.Start+i)%len(order)]
		nem, hold, err := draw(c, r, k, p)
		if err != nil {
			return nil, err
		}
		if at+hold > p.Window {
			break
		}
		evs = append(evs, Event{At: at, Hold: hold, Nemesis: nem})
		at += hold + time.Duration(1000+r.IntN(3000))*time.Millisecond
		if k == KindKillNode {
			at += 25 * time.Second // the restart's own time, roughly
		}
	}
	return evs, nil
}

// draw picks the target and strength of one event of kind k.
func draw(c *cluster.Cluster, r *rand.Rand, k Kind, p Plan) (Nemesis, time.Duration, error) {
	node := 1 + r.IntN(len(c.Nodes))
	other := 1 + (node-1+1+r.IntN(len(c.Nodes)-1))%len(c.Nodes)
	ttl := p.TTL
	hold := ttl + time.Duration(r.Int64N(int64(ttl))) // TTL .. 2×TTL: leases lapse
	switch k {
	case KindIsolate:
		return Isolate(c, node), hold, nil
	case KindBridge:
		return Bridge(c, node, other), hold, nil
	case KindHalves:
		return Halves(c, []int{node}), hold, nil
	case KindOneWay:
		return OneWay(c, node, other), hold, nil
	case KindLoss:
		l, err := NewLoss(c, node, other, 20+r.IntN(41))
		return l, hold, err
	case KindPauseNode:
		return NewPauseNode(c, node), hold, nil
	case KindKillNode:
		return NewKillNode(c, node), hold, nil
	case KindPauseClient:
		if p.Clients == nil {
			return nil, 0, fmt.Errorf("nemesis: pause-client needs Plan.Clients")
		}
		// Longer than the TTL: the lease surely lapses while stopped.
		return p.Clients(fmt.Sprintf("#%d", r.IntN(1<<16))), ttl + 2*time.Second + time.Duration(r.Int64N(int64(ttl))), nil
	case KindSkewBump, KindSkewStrobe:
		if p.MaxSkew <= 0 {
			return nil, 0, fmt.Errorf("nemesis: skew needs Plan.MaxSkew > 0")
		}
		off := p.MaxSkew/2 + time.Duration(r.Int64N(int64(p.MaxSkew/2)+1))
		if r.IntN(2) == 0 {
			off = -off
		}
		if k == KindSkewBump {
			return Bump(c, node, off), hold, nil
		}
		return Strobe(c, node, off, time.Duration(200+r.IntN(800))*time.Millisecond), hold, nil
	case KindSlow:
		s, err := NewSlow(c, node, 5+r.IntN(16))
		return s, hold, err
	case KindDCPartition:
		// Two to three TTLs: the minority's holders lose their leases, the
		// majority's waiters take the locks over, and both data centres
		// take their DC-local locks meanwhile.
		p, err := NewDCPartition(c)
		return p, 2*ttl + time.Duration(r.Int64N(int64(ttl))), err
	}
	return nil, 0, fmt.Errorf("nemesis: unknown kind %q", k)
}

// Print writes the schedule, one event a line.
func Print(w io.Writer, label string, evs []Event) {
	for i, e := range evs {
		fmt.Fprintf(w, "  %s #%02d at %6.1fs hold %5.1fs  %s\n", label, i+1, e.At.Seconds(), e.Hold.Seconds(), e.Nemesis.Name())
	}
}

// Run carries out evs from start: inject, hold, heal, one after the other,
// logging each step to log. It stops early when ctx ends, healing the
// current fault first. It returns the number of events injected.
func Run(ctx context.Context, start time.Time, evs []Event, log func(format string, args ...any)) (int, error) {
	n := 0
	for _, e := range evs {
		if !sleepUntil(ctx, start.Add(e.At)) {
			return n, nil
		}
		log("inject %s", e.Nemesis.Name())
		if err := e.Nemesis.Inject(ctx); err != nil {
			_ = e.Nemesis.Heal(context.WithoutCancel(ctx))
			return n, fmt.Errorf("inject %s: %w", e.Nemesis.Name(), err)
		}
		n++
		sleepUntil(ctx, time.Now().Add(e.Hold))
		hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
		err := e.Nemesis.Heal(hctx)
		cancel()
		log("heal   %s", e.Nemesis.Name())
		if err != nil {
			return n, fmt.Errorf("heal %s: %w", e.Nemesis.Name(), err)
		}
	}
	return n, nil
}

func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-tm.C:
		return true
	}
}

// KindOf maps a nemesis of this package back to its kind (by its name).
func KindOf(n Nemesis) Kind {
	name := n.Name()
	switch {
	case strings.HasPrefix(name, "partition isolate"):
		return KindIsolate
	case strings.HasPrefix(name, "partition bridge"):
		return KindBridge
	case strings.HasPrefix(name, "partition halves"):
		return KindHalves
	case strings.HasPrefix(name, "partition one-way"):
		return KindOneWay
	case strings.HasPrefix(name, "loss"):
		return KindLoss
	case strings.HasPrefix(name, "pause-node"):
		return KindPauseNode
	case strings.HasPrefix(name, "kill-node"):
		return KindKillNode
	case strings.HasPrefix(name, "pause-client"):
		return KindPauseClient
	case strings.HasPrefix(name, "skew bump"):
		return KindSkewBump
	case strings.HasPrefix(name, "skew strobe"):
		return KindSkewStrobe
	case strings.HasPrefix(name, "slow"):
		return KindSlow
	case strings.HasPrefix(name, "dc-partition"):
		return KindDCPartition
	}
	if k := lockdKindOf(name); k != "" {
		return k
	}
	return Kind(name)
}
