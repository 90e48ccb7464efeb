package shadow

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/manager"
	"github.com/lockstep-go/lockstep/internal/setup"
	"github.com/lockstep-go/lockstep/model"
)

func TestNewWith_RefusesAnotherProcesssOwners(t *testing.T) {
	l, err := NewWith(model.New(&clock.Local{}), nil, settings(t, "p1"), setup.NewOwners("p2"))
	assert.Nil(t, l)
	require.Error(t, err)
	assert.True(t, errors.Is(err, lockstep.ErrInvalidConfig), "%v", err)
	assert.Contains(t, err.Error(), "one ProcessID")
}

func TestNewWith_DrawsFromTheGivenIssuer(t *testing.T) {
	owners := setup.NewOwners("p1")
	assert.Equal(t, "p1.1", owners.Next())
	l, err := NewWith(model.New(&clock.Local{}), nil, settings(t, "p1"), owners)
	require.NoError(t, err)
	defer l.Close(context.Background())
	assert.Same(t, owners, l.owners)
	assert.Equal(t, "p1", l.Process())
	m, err := manager.NewLocker(l, manager.Config{Clock: l.cfg.Clock, Observer: l.cfg.Observer})
	require.NoError(t, err)
	lk, err := m.Lock(context.Background(), "a")
	require.NoError(t, err)
	assert.Equal(t, "p1.2", lk.Owner())
	require.NoError(t, lk.Unlock(context.Background()))
}

// settings returns the resolved settings of process id, as a composer
// hands them to NewWith.
func settings(t *testing.T, id string) setup.Process {
	p, err := setup.Process{ID: id}.Resolve()
	require.NoError(t, err)
	return p
}
