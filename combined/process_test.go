package combined_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	combinedlock "github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// One combined Locker is one process: the halves' process ids and clocks,
// where both are set, must agree, and one set on either half is both's.
func TestNew_HalvesAreOneProcess(t *testing.T) {
	store := model.New(&clock.Local{})
	for _, c := range []struct {
		name  string
		o     combinedlock.Options
		field string
	}{
		{"process ids", combinedlock.Options{Queue: &queuelock.Options{ProcessID: "a"}, Legacy: &shadowlock.Options{ProcessID: "b"}},
			"Queue.ProcessID/Legacy.ProcessID"},
		{"clocks", combinedlock.Options{Queue: &queuelock.Options{Clock: &clock.Local{}}, Legacy: &shadowlock.Options{Clock: &clock.Local{}}},
			"Queue.Clock/Legacy.Clock"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := combinedlock.New(store, &c.o)
			var ce *lockstep.ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, c.field, ce.Field)
			assert.Contains(t, err.Error(), "one combined Locker is one process, but they differ")
		})
	}
	clk := &clock.Local{}
	l, err := combinedlock.New(store, &combinedlock.Options{Queue: &queuelock.Options{Clock: clk},
		Legacy: &shadowlock.Options{ProcessID: "p", Clock: clk}})
	require.NoError(t, err)
	lk, err := l.Lock(context.Background(), "x")
	require.NoError(t, err)
	assert.Regexp(t, `^p\.\d+$`, lk.Owner(), "the legacy half's process id is the queue half's too")
	require.NoError(t, lk.Unlock(context.Background()))
	require.NoError(t, l.Close(context.Background()))
}
