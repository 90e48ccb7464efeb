package propertytests

import (
	"time"

	"github.com/lockstep-go/lockstep/internal/lease"
)

// smallestTimings returns the smallest TTL, in whole seconds, that the lock
// options accept with MaxServerSkew maxServerSkew, and the default Renew for
// it. It asks the options' own validation rather than repeating their rule,
// so a planted defect that lets shorter TTLs through (bugs.HalfTTLLease)
// makes the fleets run at the shorter TTL it accepts, as a user's would.
func smallestTimings() (ttl, renew time.Duration) {
	for ttl = time.Second; ; ttl += time.Second {
		c := lease.Config{TTL: ttl, MaxServerSkew: maxServerSkew}
		c.Renew = c.DefaultRenew()
		if c.Renew > 0 && c.Validate() == nil {
			return ttl, c.Renew
		}
	}
}

// cellLife is how long after a write is sent its cells surely live on every
// replica, in true (virtual) time: whole-second expiry costs up to a second,
// and a replica's clock may lead the coordinator's by maxServerSkew. It is
// the physics of the model (model/cell.go, model/cluster.go), not the
// lease's arithmetic: a holder that works later than this after its last
// acknowledged write may be working with its cells gone.
func cellLife() time.Duration { return ttl - time.Second - maxServerSkew }
