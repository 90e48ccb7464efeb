package setup_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/setup"
)

func TestProcess_ResolveAppliesTheDefaults(t *testing.T) {
	p, err := setup.Process{Deadlock: &lockstep.DeadlockDetection{}}.Resolve()
	require.NoError(t, err)
	assert.IsType(t, &clock.Local{}, p.Clock)
	require.NoError(t, setup.ValidateProcessID(p.ID))
	assert.NotNil(t, p.Logger)
	assert.Equal(t, lockstep.NopObserver{}, p.Observer)
	assert.Nil(t, p.Fencing)
	assert.Equal(t, "", p.Separator)
	assert.Equal(t, time.Second, p.Deadlock.Every, "the detection is resolved")
}

// Each bad value is refused with the *lockstep.ConfigError of its field.
func TestProcess_ResolveRefusesEachBadValue(t *testing.T) {
	for _, c := range []struct {
		p           setup.Process
		field, text string
	}{
		{setup.Process{Separator: "a\x00"}, "Separator", `"a\x00" is contains a NUL byte, which no lock id may hold: use a short visible string such as "/"`},
		{setup.Process{Separator: "123456789"}, "Separator", "9 bytes, more than 8"},
		{setup.Process{Separator: " "}, "Separator", "only white space"},
		{setup.Process{Separator: "\xff"}, "Separator", "not valid UTF-8"},
		{setup.Process{ID: "a/b"}, "ProcessID", `"a/b" has '/' at byte 1`},
		{setup.Process{Deadlock: &lockstep.DeadlockDetection{Every: time.Millisecond}}, "Deadlock.Every", "below 100ms"},
	} {
		_, err := c.p.Resolve()
		var ce *lockstep.ConfigError
		require.ErrorAs(t, err, &ce, "%+v", c.p)
		assert.Equal(t, c.field, ce.Field)
		assert.Contains(t, err.Error(), c.text)
	}
}

// A composer's half has the process's clock and id, flat ids, no
// detection, fencing only when it draws tokens itself, and its own logger
// and observer, defaulted.
func TestProcess_HalfKeepsWhatACoreTakesFromTheComposer(t *testing.T) {
	p, err := setup.Process{ID: "p", Fencing: &clock.Global{}, Separator: "/", Deadlock: &lockstep.DeadlockDetection{}}.Resolve()
	require.NoError(t, err)
	logger := slog.New(slog.DiscardHandler)
	h := p.Half(logger, nil, true)
	assert.Equal(t, setup.Process{Clock: p.Clock, ID: "p", Logger: logger, Observer: lockstep.NopObserver{}, Fencing: p.Fencing}, h)
	h = p.Half(nil, nil, false)
	assert.Nil(t, h.Fencing)
	assert.NotNil(t, h.Logger)
}

func TestSameClock(t *testing.T) {
	c := &clock.Local{}
	assert.True(t, setup.SameClock(c, c))
	assert.False(t, setup.SameClock(c, &clock.Local{}))
	assert.False(t, setup.SameClock(funcClock{}, funcClock{}), "an incomparable clock is not the same")
}

// funcClock is a clock of a type that cannot be compared: a func field
// makes == panic.
type funcClock struct {
	lockstep.Clock
	_ func()
}
