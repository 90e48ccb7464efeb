package combine

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/queue"
	"github.com/lockstep-go/lockstep/internal/shadow"
)

func TestCheckHalves_RefusesWhatTheComposerSetsOnce(t *testing.T) {
	g := &clock.Global{}
	d := &lockstep.DeadlockDetection{}
	for _, c := range []struct {
		name  string
		q     *queue.Options
		s     *shadow.Options
		field string
	}{
		{"queue separator", &queue.Options{Separator: "/"}, nil, "Queue.Separator/Legacy.Separator"},
		{"legacy separator", nil, &shadow.Options{Separator: "/"}, "Queue.Separator/Legacy.Separator"},
		{"queue fencing", &queue.Options{Fencing: g}, nil, "Queue.Fencing/Legacy.Fencing"},
		{"legacy fencing", nil, &shadow.Options{Fencing: g}, "Queue.Fencing/Legacy.Fencing"},
		{"queue deadlock", &queue.Options{Deadlock: d}, nil, "Queue.Deadlock/Legacy.Deadlock"},
		{"legacy deadlock", nil, &shadow.Options{Deadlock: d}, "Queue.Deadlock/Legacy.Deadlock"},
		{"queue process", &queue.Options{ProcessID: "q"}, nil, "Queue.ProcessID/Legacy.ProcessID"},
		{"legacy process", nil, &shadow.Options{ProcessID: "s"}, "Queue.ProcessID/Legacy.ProcessID"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckHalves("migration", c.q, c.s, "p")
			var ce *lockstep.ConfigError
			require.True(t, errors.As(err, &ce), "%v", err)
			assert.Equal(t, c.field, ce.Field)
			assert.ErrorIs(t, err, lockstep.ErrInvalidConfig)
			assert.Contains(t, err.Error(), "migration Options.")
		})
	}
}

func TestCheckHalves_AcceptsWhatTheHalvesMaySet(t *testing.T) {
	require.NoError(t, CheckHalves("combined", nil, nil, ""))
	require.NoError(t, CheckHalves("migration", &queue.Options{ProcessID: "p", Table: "q"}, &shadow.Options{ProcessID: "p"}, "p"))
	require.NoError(t, CheckHalves("combined", &queue.Options{ProcessID: "a"}, &shadow.Options{ProcessID: "b"}, ""),
		"combined.New checks that the halves agree itself")
}
