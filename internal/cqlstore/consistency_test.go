package cqlstore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

func TestValidatePair_AcceptsOnlyPairsThatIntersect(t *testing.T) {
	ok := [][2]Level{{Quorum, Quorum}, {Quorum, EachQuorum}, {LocalQuorum, LocalQuorum},
		{LocalQuorum, EachQuorum}, {All, One}, {One, All}, {LocalOne, All}, {All, All}}
	bad := [][2]Level{{One, One}, {One, Quorum}, {Quorum, One}, {Two, Two}, {Quorum, LocalQuorum},
		{LocalQuorum, Quorum}, {EachQuorum, Quorum}, {All, Any}, {Quorum, Any}, {Serial, Serial}, {Level(0x42), Quorum}}
	for _, p := range ok {
		assert.NoError(t, ValidatePair(p[0], p[1]), "read %v write %v", p[0], p[1])
	}
	for _, p := range bad {
		err := ValidatePair(p[0], p[1])
		assert.ErrorIs(t, err, lockstep.ErrInvalidConfig, "read %v write %v", p[0], p[1])
	}
	err := ValidatePair(One, Quorum)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "read ONE, write QUORUM")
}

func TestLevel_StringIsTheCQLName(t *testing.T) {
	assert.Equal(t, "LOCAL_QUORUM", LocalQuorum.String())
	assert.Equal(t, "LOCAL_ONE", LocalOne.String())
	assert.Equal(t, "UNKNOWN_CONS_0x42", Level(0x42).String())
}

func TestCommitLevel_OfEachSerialLevel(t *testing.T) {
	c, err := CommitLevel(Serial)
	require.NoError(t, err)
	assert.Equal(t, Quorum, c)
	c, err = CommitLevel(LocalSerial)
	require.NoError(t, err)
	assert.Equal(t, LocalQuorum, c)
	_, err = CommitLevel(Quorum)
	assert.ErrorIs(t, err, lockstep.ErrInvalidConfig)
}

func TestValidateScope_GlobalRefusesPairsThatMeetInOneDCOnly(t *testing.T) {
	var global lockstep.Scope
	ok := [][2]Level{{Quorum, Quorum}, {Quorum, EachQuorum}, {LocalQuorum, EachQuorum}, {All, One}, {LocalOne, All}, {All, LocalQuorum}}
	for _, p := range ok {
		assert.NoError(t, ValidateScope(global, p[0], p[1]), "read %v write %v", p[0], p[1])
	}
	err := ValidateScope(global, LocalQuorum, LocalQuorum)
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "cannot keep a global lock global")
	assert.Contains(t, err.Error(), "EACH_QUORUM writes with LOCAL_QUORUM reads")
	assert.Contains(t, err.Error(), "WithLocalDC")
	assert.ErrorIs(t, ValidateScope(global, One, One), lockstep.ErrInvalidConfig)
}

func TestValidateScope_LocalNeedsANamedDCAndPairsThatMeetInIt(t *testing.T) {
	dc1 := lockstep.LocalTo("dc1")
	for _, p := range [][2]Level{{LocalQuorum, LocalQuorum}, {LocalQuorum, EachQuorum}, {Quorum, Quorum}, {All, LocalOne}} {
		assert.NoError(t, ValidateScope(dc1, p[0], p[1]), "read %v write %v", p[0], p[1])
	}
	assert.ErrorIs(t, ValidateScope(dc1, LocalOne, LocalOne), lockstep.ErrInvalidConfig)
	assert.ErrorIs(t, ValidateScope(dc1, LocalOne, LocalQuorum), lockstep.ErrInvalidConfig)
	err := ValidateScope(lockstep.LocalTo(" dc1"), LocalQuorum, LocalQuorum)
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "data centre")
}

func TestValidateSerialScope_LocalSerialOnlyForADCLocalScope(t *testing.T) {
	var global lockstep.Scope
	assert.NoError(t, ValidateSerialScope(global, Serial))
	err := ValidateSerialScope(global, LocalSerial)
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "use SERIAL")
	assert.NoError(t, ValidateSerialScope(lockstep.LocalTo("dc1"), LocalSerial))
	assert.NoError(t, ValidateSerialScope(lockstep.LocalTo("dc1"), Serial))
}
