package nemesis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"time"
)

// The lockd nemeses: faults of the lockd processes a segment runs and of
// the links between them and their clients (the runner's Lockds). They do
// not touch the cluster, so the runner plays them on a track of their own,
// beside the cluster's schedule.
const (
	// KindKillLockd SIGKILLs a lockd while a client of it holds a lock;
	// heal starts it again on the same address.
	KindKillLockd Kind = "kill-lockd"
	// KindPauseLockd SIGSTOPs a lockd while a client of it holds a lock,
	// for longer than its lock TTL (its leases in the store lapse); heal
	// SIGCONTs it.
	KindPauseLockd Kind = "pause-lockd"
	// KindCutLockdClient stops the proxy between one client and its lockd
	// from forwarding, for longer than the session TTL, while the client
	// holds a lock; heal forwards again.
	KindCutLockdClient Kind = "cut-lockd-client"
)

// LockdKinds are the lockd nemeses, in a fixed order.
var LockdKinds = []Kind{KindKillLockd, KindPauseLockd, KindCutLockdClient}

// IsLockd reports whether k is a lockd nemesis.
func IsLockd(k Kind) bool {
	for _, l := range LockdKinds {
		if k == l {
			return true
		}
	}
	return false
}

// lockdKindOf maps a lockd nemesis's name back to its kind ("" if none).
func lockdKindOf(name string) Kind {
	for _, k := range LockdKinds {
		if strings.HasPrefix(name, string(k)+" ") {
			return k
		}
	}
	return ""
}

// Lockds are the lockd processes of a segment, numbered from 1, and the
// proxies through which their clients reach them: the runner's.
type Lockds interface {
	// Clients are the process ids of lockd n's clients.
	Clients(n int) []string
	// Holding reports whether client (a process id) holds a lock now, as
	// far as its history shows.
	Holding(client string) bool
	// Kill SIGKILLs lockd n and reaps it; Restart starts it again on its
	// address and waits until it serves.
	Kill(n int) error
	Restart(ctx context.Context, n int) error
	// Signal sends sig to lockd n.
	Signal(n int, sig syscall.Signal) error
	// Cut stops the proxy of client from forwarding in either direction
	// (its connections stay open, as behind a dead link); Restore forwards
	// again.
	Cut(client string) error
	Restore(client string) error
}

// Affecting is a nemesis that knows which clients it affects: the lockd
// nemeses, whose clients must each learn that their locks were lost
// (check.LockdEvent).
type Affecting interface {
	Nemesis
	Affected() []string
}

// midHold is how long a lockd nemesis waits at injection for a client of
// its target to hold a lock, so that it strikes mid-hold.
const midHold = 3 * time.Second

func waitHolding(l Lockds, clients []string, wait time.Duration) {
	if wait == 0 {
		wait = midHold
	}
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		for _, c := range clients {
			if l.Holding(c) {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// KillLockd SIGKILLs lockd N mid-hold; Heal restarts it.
type KillLockd struct {
	L      Lockds
	N      int
	killed bool
}

func (k *KillLockd) Name() string       { return fmt.Sprintf("kill-lockd l%d", k.N) }
func (k *KillLockd) Affected() []string { return k.L.Clients(k.N) }

func (k *KillLockd) Inject(context.Context) error {
	if k.killed {
		return nil
	}
	waitHolding(k.L, k.L.Clients(k.N), 0)
	if err := k.L.Kill(k.N); err != nil {
		return err
	}
	k.killed = true
	return nil
}

func (k *KillLockd) Heal(ctx context.Context) error {
	if !k.killed {
		return nil
	}
	if err := k.L.Restart(ctx, k.N); err != nil {
		return err
	}
	k.killed = false
	return nil
}

// PauseLockd SIGSTOPs lockd N mid-hold; Heal SIGCONTs it. Wait is how
// long it waits for a client of N to hold a lock (0: 3 s).
type PauseLockd struct {
	L      Lockds
	N      int
	Wait   time.Duration
	paused bool
}

func (p *PauseLockd) Name() string       { return fmt.Sprintf("pause-lockd l%d", p.N) }
func (p *PauseLockd) Affected() []string { return p.L.Clients(p.N) }

func (p *PauseLockd) Inject(context.Context) error {
	if p.paused {
		return nil
	}
	waitHolding(p.L, p.L.Clients(p.N), p.Wait)
	if err := p.L.Signal(p.N, syscall.SIGSTOP); err != nil {
		return err
	}
	p.paused = true
	return nil
}

func (p *PauseLockd) Heal(context.Context) error {
	if !p.paused {
		return nil
	}
	p.paused = false
	return p.L.Signal(p.N, syscall.SIGCONT)
}

// CutLockdClient stops the proxy of Client mid-hold; Heal restores it.
type CutLockdClient struct {
	L      Lockds
	Client string
	cut    bool
}

func (c *CutLockdClient) Name() string       { return "cut-lockd-client " + c.Client }
func (c *CutLockdClient) Affected() []string { return []string{c.Client} }

func (c *CutLockdClient) Inject(context.Context) error {
	if c.cut {
		return nil
	}
	waitHolding(c.L, []string{c.Client}, 0)
	if err := c.L.Cut(c.Client); err != nil {
		return err
	}
	c.cut = true
	return nil
}

func (c *CutLockdClient) Heal(context.Context) error {
	if !c.cut {
		return nil
	}
	c.cut = false
	return c.L.Restore(c.Client)
}

// LockdPlan says what a lockd track may do.
type LockdPlan struct {
	Seed    uint64
	Window  time.Duration // events start and end within [0, Window)
	Kinds   []Kind        // lockd kinds only
	Lockds  Lockds
	Count   int // lockds, numbered 1..Count
	Clients []string
	// LockTTL is lockd's --lock-ttl: a pause outlasts it. SessionTTL is
	// the clients' session TTL: a cut outlasts it.
	LockTTL, SessionTTL time.Duration
	// Start and Segment as in Plan: where the seeded order of kinds
	// begins, and the schedule's randomness.
	Start, Segment int
}

// LockdSchedule draws the events of a lockd track. As Schedule: the same
// plan gives the same events, kinds round-robin from a seeded shuffle, one
// event at a time with 1–3 s between them. Holds: a kill 2–4 s (the
// restart follows), a pause its lock TTL plus 1–2 s, a cut the session TTL
// plus 1–2 s.
func LockdSchedule(p LockdPlan) ([]Event, error) {
	if len(p.Kinds) == 0 {
		return nil, fmt.Errorf("nemesis: lockd schedule with no kinds")
	}
	for _, k := range p.Kinds {
		if !IsLockd(k) {
			return nil, fmt.Errorf("nemesis: %s is not a lockd kind (%v)", k, LockdKinds)
		}
	}
	if p.Count < 1 || len(p.Clients) == 0 || p.LockTTL <= 0 || p.SessionTTL <= 0 {
		return nil, fmt.Errorf("nemesis: lockd schedule needs lockds, clients, the lock TTL and the session TTL")
	}
	order := append([]Kind(nil), p.Kinds...)
	rand.New(rand.NewPCG(p.Seed, 0x6c6f636b64)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	r := rand.New(rand.NewPCG(p.Seed, 0x6c6576^uint64(p.Segment)))
	var evs []Event
	at := time.Duration(1+r.IntN(2)) * time.Second
	for i := 0; ; i++ {
		k := order[(p.Start+i)%len(order)]
		extra := time.Second + time.Duration(r.Int64N(int64(time.Second)))
		var nem Nemesis
		var hold time.Duration
		switch k {
		case KindKillLockd:
			nem, hold = &KillLockd{L: p.Lockds, N: 1 + r.IntN(p.Count)}, extra+time.Second
		case KindPauseLockd:
			nem, hold = &PauseLockd{L: p.Lockds, N: 1 + r.IntN(p.Count)}, p.LockTTL+extra
		case KindCutLockdClient:
			nem, hold = &CutLockdClient{L: p.Lockds, Client: p.Clients[r.IntN(len(p.Clients))]}, p.SessionTTL+extra
		}
		if at+hold > p.Window {
			break
		}
		evs = append(evs, Event{At: at, Hold: hold, Nemesis: nem})
		at += hold + time.Duration(1000+r.IntN(2000))*time.Millisecond
	}
	return evs, nil
}
