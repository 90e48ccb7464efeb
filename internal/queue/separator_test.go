package queue

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// A bad Separator is refused before anything is set up: bad input changes
// nothing, so the wake-up transport must not be handed to the Locker that
// New then discards (its handler would feed a Locker nobody has).
func TestOptions_BadSeparatorChangesNothing(t *testing.T) {
	n := &memNet{handlers: map[string]func([]byte){}}
	_, err := New(model.New(&clock.Local{}), &Options{Separator: " ",
		Wake: &Wake{Transport: memTransport{n, "a"}, Key: wakeKey}})
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	require.Empty(t, n.handlers, "New failed, yet registered a wake-up handler on the transport")
}
