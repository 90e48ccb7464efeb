//go:build lockstep_bugs

package propertytests

import "github.com/lockstep-go/lockstep/internal/bugs"

// The controls of the safety issue's defects. Their defects are compiled
// only under the lockstep_bugs build tag (internal/bugs.Plant), so these
// controls run only with it: go test -tags lockstep_bugs ./propertytests/
// -run Negative. Each restores what users found in released code, which the
// model checks of that time did not find; the widened checks must now catch
// each one by the intended property and shrink it.
func init() {
	controls = append(controls,
		// A lease of TTL/2 at the TTL of 1s the old options accepted: the
		// cells expire before the lease ends, and the harness, judging by the
		// model's whole-second expiry rather than by the lease's arithmetic,
		// sees the holder work after its cells may be gone.
		control{"HalfTTLLease", fleetNamed("new"),
			variant{plant: []bugs.Defect{bugs.HalfTTLLease}}, "lease:", ""},
		// Lease deadlines on the wall clock: a holder whose wall clock is
		// stepped back keeps Lost() open while its cells expire.
		control{"WallClockLease", fleetNamed("new"),
			variant{plant: []bugs.Defect{bugs.WallClockLease}}, "lease:", ""},
		// A Locker that never forgets an id, and a floor cell without TTL:
		// the lock's partition keeps a live cell forever.
		control{"KeepIDState", fleetNamed("new"),
			variant{plant: []bugs.Defect{bugs.KeepIDState}, noLeaseCheck: true}, "state:", ""},
	)
}
