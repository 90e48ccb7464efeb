//go:build lockstep_bugs

package propertytests

import (
	"testing"

	"github.com/lockstep-go/lockstep/internal/bugs"
)

// With RenewFromStart planted (the code before the fix), the same scenario
// loses the lease.
func TestSim_RenewFromStartIsCaught(t *testing.T) {
	defer bugs.Plant(bugs.RenewFromStart)()
	if !slowAcquisitionLosesLease(t) {
		t.Fatal("planted RenewFromStart not caught: the slow acquisition kept its lease")
	}
}
