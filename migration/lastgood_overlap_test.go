package migration

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model"
)

// gatedFlag answers its first call only when released, as a read in flight
// across the flag's failure (a heartbeat's read beside a Lock's); every
// other call answers at once, failing while broken.
type gatedFlag struct {
	flakyFlag
	entered, release chan struct{}
	calls            int
}

func (g *gatedFlag) Mode(ctx context.Context) (lockstep.Mode, error) {
	g.calls++
	if g.calls == 1 {
		m, err := g.flakyFlag.Mode(ctx) // read before the failure began
		close(g.entered)
		<-g.release
		return m, err
	}
	return g.flakyFlag.Mode(ctx)
}

// An answer from a call that began before the outage's failure returned is
// older news than that failure: it does not end the outage, so it logs no
// recovery and the next failure no new outage. (CI saw a flag-file test log
// "answers again" and then a second "failing" this way: the Locker's own
// concurrent read had read the file before it vanished.)
func TestKeepLastGood_AnAnswerOlderThanTheFailureDoesNotEndTheOutage(t *testing.T) {
	ctx := context.Background()
	var logs syncBuffer
	src := &gatedFlag{flakyFlag: flakyFlag{mode: lockstep.ModeCombined}, entered: make(chan struct{}), release: make(chan struct{})}
	f, err := keepLastGood(src, &flagOptions{Clock: model.NewManualClock(model.DefaultStart), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	// A good answer first, so there is one to serve.
	src.calls = 1
	_, err = f.Mode(ctx)
	require.NoError(t, err)
	src.calls = 0

	old := make(chan error, 1)
	go func() { _, err := f.Mode(ctx); old <- err }()
	<-src.entered // the old call has read the flag, still good
	src.broken.Store(true)
	m, err := f.Mode(ctx) // fails: the outage begins, served stale
	require.NoError(t, err)
	assert.Equal(t, lockstep.ModeCombined, m)
	close(src.release)
	require.NoError(t, <-old)
	_, err = f.Mode(ctx) // still failing
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(logs.String(), "serving its last good answer"), logs.String())
	assert.NotContains(t, logs.String(), "answers again", "an answer older than the failure is not a recovery")

	src.broken.Store(false)
	_, err = f.Mode(ctx)
	require.NoError(t, err)
	assert.Contains(t, logs.String(), "answers again", "a call begun after the failure is one")
}
