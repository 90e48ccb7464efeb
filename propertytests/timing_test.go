package propertytests

import (
	"time"

	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// smallestTimings returns the smallest TTL, in whole seconds, that the
// queue and legacy options accept with the fleets' MaxServerSkew and
// MaxClockSkew, and the default Renew for it. It asks the options' own
// validation rather than repeating their rule, so a planted defect that lets
// shorter TTLs through (half-ttl-lease, in k) makes the fleets run at the
// shorter TTL it accepts, as a user's would.
func smallestTimings(k knobs) (ttl, renew time.Duration) {
	s := model.New(model.NewManualClock(0))
	for ttl = time.Second; ; ttl += time.Second {
		_, qerr := queuelock.New(s, &queuelock.Options{TTL: ttl, MaxServerSkew: maxServerSkew, MaxClockSkew: maxClockSkew, TestingKnobs: k.queue})
		_, lerr := shadowlock.New(s, &shadowlock.Options{TTL: ttl, MaxServerSkew: maxServerSkew, TestingKnobs: k.legacy})
		if qerr == nil && lerr == nil {
			c := lease.Config{TTL: ttl, MaxServerSkew: maxServerSkew}
			if k.queue != nil {
				c.Knobs = k.queue.Lease
			}
			return ttl, c.DefaultRenew()
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

// setTimings sets the fleets' TTL and Renew and what derives from them.
func setTimings(t, r time.Duration) {
	ttl, renew = t, r
	livenessBound = 3 * ttl
	quietLength = livenessBound + 2*time.Second
	censusTTL = 2 * ttl
}

// plant moves the fleets to the smallest TTL the options accept with the
// defects ds switched on (k: knobsFor of ds), when ds names any. The
// returned function restores the timings.
func plant(ds []defect, k knobs) (undo func()) {
	if len(ds) == 0 {
		return func() {}
	}
	oldTTL, oldRenew := ttl, renew
	setTimings(smallestTimings(k))
	return func() { setTimings(oldTTL, oldRenew) }
}
