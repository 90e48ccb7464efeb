package lockd

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
)

// Defaults of Options.
const (
	DefaultSessionTTL = 10 * time.Second
	DefaultMinTTL     = time.Second
	DefaultMaxTTL     = 5 * time.Minute
	DefaultMaxWait    = 5 * time.Minute
	DefaultRelease    = 10 * time.Second
	DefaultDrain      = 5 * time.Second

	DefaultMaxBodyBytes            = 1 << 20
	DefaultMaxSessionName          = 256
	DefaultMaxComment              = 256
	DefaultMaxIDsPerRequest        = 128
	DefaultMaxSessionsPerPrincipal = 1024
	DefaultMaxWaitsPerSession      = 64
)

// CommentCeiling is the most MaxComment may be: a comment is stored in
// every wait record of a deadlock-detecting fleet.
const CommentCeiling = maxComment

// Options configure a Server. The zero value of every field means its
// default, and a nil *Options all defaults; New refuses invalid values.
type Options struct {
	// Principals are the callers and their grants. Nil is open mode: every
	// caller is "anonymous" and granted every id (for loopback use).
	Principals *Principals
	// Clock measures sessions' TTLs. Default clock.Local.
	Clock lockstep.Clock
	// SessionTTL is the TTL of a session that asks none (default 10s);
	// MinTTL and MaxTTL bound what a session may ask (default 1s and 5m).
	SessionTTL, MinTTL, MaxTTL time.Duration
	// MaxWait bounds a Lock call that carries no deadline, or a longer one
	// (default 5m): a call keeps the mode it started in, so an endless one
	// would hold a phase move back.
	MaxWait time.Duration
	// Release bounds the unlocks of a session that lapsed or closed
	// (default 10s); what they cannot delete expires with its TTL.
	Release time.Duration
	// Drain bounds how long Close waits for the clients of sessions that
	// can move (their identity handed out a peer token, so PeerKey is set)
	// to move them to another lockd and close them here (default 5s;
	// docs/algorithms.md §8.8, "Draining"). Sessions that cannot move end
	// at once, as do those still here when it runs out; Close's ctx bounds
	// it too.
	Drain time.Duration
	// Metrics, when set, counts sessions, calls and refusals (NewMetrics;
	// register it with a Prometheus registry). Nil: none.
	Metrics *Metrics
	// Logger receives refusals (Warn), lapsed sessions and lost locks
	// (Warn). Default: discard.
	Logger *slog.Logger
	// PeerKey, when set (at least MinPeerKey bytes, the same on every
	// lockd of the cluster), makes GetToken return a peer token that
	// another lockd with the key adopts (handover.go). Nil: tokens stay
	// within the lockd that issued them (OTHER_LOCKD elsewhere).
	PeerKey []byte
	// Limits bound what one request or one principal may ask (limits.go);
	// each zero field means its default.
	Limits Limits
	// TestingKnobs switch on planted defects for the tests that show a
	// property catches them; nil in production.
	TestingKnobs *TestingKnobs
}

// TestingKnobs are the Server's planted defects.
type TestingKnobs struct {
	// EndDrainedAtOnce makes Close end every session at once, as a lockd
	// without the drain did: a session that could move to another lockd
	// loses its locks at a graceful shutdown.
	EndDrainedAtOnce bool
}

// Limits bound the requests a Server reads and what one principal may hold
// open. Each refusal is an error naming the limit (InvalidArgument for a
// request too large, ResourceExhausted for a count reached) and changes
// nothing.
type Limits struct {
	// MaxBodyBytes bounds a request's body, and each message in it
	// (default 1 MiB). A body is read only once the caller's credentials
	// passed.
	MaxBodyBytes int64
	// MaxSessionName bounds OpenSessionRequest.name, in bytes (default 256).
	MaxSessionName int
	// MaxComment bounds LockRequest.comment, in bytes (default and most:
	// CommentCeiling, 256).
	MaxComment int
	// MaxIDsPerRequest bounds the items of one Lock or TryLock (default 128).
	MaxIDsPerRequest int
	// MaxSessionsPerPrincipal bounds the live sessions of one principal
	// (default 1024; in open mode every caller is the one principal
	// "anonymous").
	MaxSessionsPerPrincipal int
	// MaxWaitsPerSession bounds the Lock calls (not TryLock) of one
	// session in flight at once (default 64).
	MaxWaitsPerSession int
}

// config is Options resolved.
type config struct {
	Options
}

func (o *Options) resolve() (config, error) {
	var c config
	if o != nil {
		c.Options = *o
	}
	if c.Clock == nil {
		c.Clock = &clock.Local{}
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.SessionTTL, DefaultSessionTTL)
	def(&c.MinTTL, DefaultMinTTL)
	def(&c.MaxTTL, DefaultMaxTTL)
	def(&c.MaxWait, DefaultMaxWait)
	def(&c.Release, DefaultRelease)
	def(&c.Drain, DefaultDrain)
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"SessionTTL", c.SessionTTL}, {"MinTTL", c.MinTTL}, {"MaxTTL", c.MaxTTL}, {"MaxWait", c.MaxWait}, {"Release", c.Release}, {"Drain", c.Drain}} {
		if f.d < 0 {
			return c, &lockstep.ConfigError{Field: f.name, Reason: fmt.Sprintf("%v must not be negative: use 0 for the default or a positive duration", f.d)}
		}
	}
	if c.MinTTL > c.MaxTTL || c.SessionTTL < c.MinTTL || c.SessionTTL > c.MaxTTL {
		return c, &lockstep.ConfigError{Field: "SessionTTL", Reason: fmt.Sprintf("want MinTTL %v <= SessionTTL %v <= MaxTTL %v", c.MinTTL, c.SessionTTL, c.MaxTTL)}
	}
	if err := c.Limits.resolve(); err != nil {
		return c, err
	}
	if n := len(c.PeerKey); n > 0 && n < MinPeerKey {
		return c, &lockstep.ConfigError{Field: "PeerKey", Reason: fmt.Sprintf("%d bytes: use at least %d random bytes, the same on every lockd of the cluster (or none)", n, MinPeerKey)}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c, nil
}
