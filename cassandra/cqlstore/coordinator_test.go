package cqlstore

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/lockstep-go/lockstep"
)

func TestCheckCoordinator_RefusesAnotherDataCentreOnlyForADCLocalStore(t *testing.T) {
	assert.NoError(t, CheckCoordinator("", "10.0.0.3", "dc2"), "a global store takes any coordinator")
	assert.NoError(t, CheckCoordinator("dc1", "10.0.0.1", "dc1"))
	assert.NoError(t, CheckCoordinator("dc1", "10.0.0.1", ""), "an unknown data centre is not judged")

	err := CheckCoordinator("dc1", "10.0.0.3", "dc2")
	var remote *RemoteCoordinatorError
	assert.True(t, errors.As(err, &remote))
	assert.Contains(t, err.Error(), `coordinated by 10.0.0.3 in data centre "dc2", but the store is local to "dc1"`)
	assert.Contains(t, err.Error(), `DataCentreHostFilter("dc1")`)

	errs := Errors{Name: "cassandra", Classify: func(error) Outcome { return NotApplied }}
	w := errs.Write("put", "queue_lock", err)
	assert.ErrorIs(t, w, lockstep.ErrUnknownOutcome, "the write may have landed in the other data centre")
	assert.ErrorIs(t, w, lockstep.ErrRefused, "retrying through the same routing cannot help")
	assert.ErrorAs(t, w, &remote)
	r := errs.Read("queue_lock", err)
	assert.ErrorIs(t, r, lockstep.ErrRefused)
	assert.NotErrorIs(t, r, lockstep.ErrUnknownOutcome)
}
