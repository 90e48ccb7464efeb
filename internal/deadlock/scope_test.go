package deadlock

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

type dcLocal struct{ lockstep.Store }

func (dcLocal) Scope() lockstep.Scope { return lockstep.LocalTo("dc1") }

func TestNew_ADCLocalStoresRecordsGoToItsDCsPartition(t *testing.T) {
	s := model.New(&clock.Local{})
	g, err := New(Config{Store: s, Clock: &clock.Local{}, Process: "p"})
	require.NoError(t, err)
	assert.Equal(t, "waits", g.opt.Partition)
	l, err := New(Config{Store: dcLocal{s}, Clock: &clock.Local{}, Process: "p"})
	require.NoError(t, err)
	assert.Equal(t, "\x00dc1\x00waits", l.opt.Partition)
}
