// Lease (settings.go) resolves and validates the lease timing every lock
// algorithm's Options share, so that each applies the same defaults and
// refuses the same bad values with the same errors.

package setup

import (
	"cmp"
	"time"

	"github.com/lockstep-go/lockstep/internal/lease"
)

// DefaultTTL is the TTL of lock cells when none is configured.
const DefaultTTL = 30 * time.Second

// Lease returns an algorithm's lease timing as the user gave it, with the
// defaults applied (TTL 30s, MaxServerSkew lease.DefaultMaxServerSkew,
// Renew lease.Config.DefaultRenew) and validated, or an error wrapping
// lockstep.ErrInvalidConfig. A negative TTL or Renew is refused, not
// defaulted. knobs switch on the lease's planted defects, which change
// what is accepted; nil in production.
func Lease(ttl, renew, maxServerSkew time.Duration, knobs *lease.TestingKnobs) (lease.Config, error) {
	c := lease.Config{TTL: ttl, Renew: renew, MaxServerSkew: maxServerSkew, Knobs: knobs}
	c.TTL = cmp.Or(c.TTL, DefaultTTL)
	c.MaxServerSkew = cmp.Or(c.MaxServerSkew, lease.DefaultMaxServerSkew)
	if c.Renew == 0 && c.TTL > 0 {
		c.Renew = c.DefaultRenew()
	}
	return c, c.Validate()
}
