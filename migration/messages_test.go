package migration

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration/census"
)

// The texts of the errors a user acts on during a migration say what to do.
func TestErrorTexts_SayWhatToDo(t *testing.T) {
	me := &ModeError{ID: "orders", Process: "pod-1", Configured: lockstep.ModeLegacy, Phase: Phase{Mode: lockstep.ModeNew}}
	assert.Equal(t, `migration: process pod-1 refuses to lock "orders": configured mode legacy is incompatible with fleet phase new `+
		`(allowed: combined, new); set the process's flag to an allowed mode, or move the phase towards legacy with lockctl phase set `+
		`(one step at a time)`, me.Error())

	h := &heartbeat{table: "fleet_census", self: census.Entry{Process: "pod-1"}, clock: &clock.Local{}}
	err := h.staleError(errors.New("timeout"))
	assert.ErrorIs(t, err, ErrStaleCensus)
	assert.Contains(t, err.Error(), "no census heartbeat has succeeded yet; the phase controller might not see this process, so no lock is taken: "+
		"check that this process reaches the store and may write table fleet_census (the Logger's census warnings name the error); "+
		"locks are taken again once a heartbeat succeeds: timeout")
}

// A CensusTTL that is not whole seconds and below the minimum is told the
// minimum (whole seconds), not a rounding that would be refused next.
func TestNew_ShortFractionalCensusTTLIsToldTheMinimum(t *testing.T) {
	_, err := New(newStore(), Static(lockstep.ModeLegacy), withIdentity(&Options{CensusTTL: 1500 * time.Millisecond}, &clock.Local{}, "p"))
	assert.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.ErrorContains(t, err, "CensusTTL: 1.5s leaves no safe lease")
	assert.ErrorContains(t, err, "use a TTL of at least 4s")
	assert.NotContains(t, err.Error(), "use 2s")

	_, err = New(newStore(), Static(lockstep.ModeLegacy), withIdentity(&Options{CensusTTL: 4500 * time.Millisecond}, &clock.Local{}, "p"))
	assert.ErrorContains(t, err, "CensusTTL: 4.5s is not a whole number of seconds (Cassandra TTLs are seconds): use 5s")
}
