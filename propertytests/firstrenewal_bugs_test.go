//go:build lockstep_bugs

package propertytests

import (
	"testing"

	"github.com/lockstep-go/lockstep/internal/lease"
	"github.com/lockstep-go/lockstep/queuelock"
)

// With RenewFromStart planted (the code before the fix), the same scenario
// loses the lease.
func TestSim_RenewFromStartIsCaught(t *testing.T) {
	if !slowAcquisitionLosesLease(t, &queuelock.TestingKnobs{Lease: &lease.TestingKnobs{RenewFromStart: true}}) {
		t.Fatal("planted RenewFromStart not caught: the slow acquisition kept its lease")
	}
}
