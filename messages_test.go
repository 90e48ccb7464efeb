package lockstep_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// The texts of the root package's validation errors say what to do; these
// pin them.
func TestValidationErrors_SayWhatToDo(t *testing.T) {
	err := lockstep.ValidateID(strings.Repeat("i", 513))
	require.ErrorIs(t, err, lockstep.ErrInvalidID)
	assert.Equal(t, "lockstep: invalid lock id: 513 bytes: a lock id is 1 to 512 bytes of UTF-8 without NUL; "+
		"name the resource the lock guards, and hash longer names (e.g. hex SHA-256, 64 bytes)", err.Error())
	for _, id := range []string{"", "bad\xff", "nul\x00"} {
		assert.ErrorIs(t, lockstep.ValidateID(id), lockstep.ErrInvalidID, "%q", id)
	}
	require.NoError(t, lockstep.ValidateID(strings.Repeat("i", 512)))

	err = lockstep.ValidateName("Table", "Queue-Lock")
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.Equal(t, `lockstep: invalid configuration: Table: "Queue-Lock" is not a safe identifier: use 1 to 48 of lower-case letters, `+
		`digits and '_', starting with a letter (e.g. "queue_lock"), and the same name in schema.WithTables`, err.Error())
	assert.Contains(t, lockstep.ValidateName("keyspace", "1locks").Error(), `(e.g. "t_1locks")`)

	err = lockstep.ValidateTTL("TTL", 1500*time.Millisecond)
	assert.Equal(t, "lockstep: invalid configuration: TTL: 1.5s is not a whole number of seconds (Cassandra TTLs are seconds): use 2s", err.Error())
	err = lockstep.ValidateTTL("TTL", -time.Second)
	assert.Equal(t, "lockstep: invalid configuration: TTL: -1s must be positive: use a whole number of seconds, or leave it 0 for the default", err.Error())
}
