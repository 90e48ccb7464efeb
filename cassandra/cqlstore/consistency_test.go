package cqlstore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// Every pair of levels (and an unknown one), for a global and a DC-local
// scope: the pairs docs/multi-dc.md accepts are accepted, and every other
// is refused with an error that names the pair and says what to use.
func TestValidateScope_EveryRefusalNamesThePairAndWhatToUse(t *testing.T) {
	levels := []Level{Any, One, Two, Three, Quorum, All, LocalQuorum, EachQuorum, Serial, LocalSerial, LocalOne, Level(0x42)}
	readable := map[Level]bool{One: true, Two: true, Three: true, Quorum: true, All: true, LocalQuorum: true, LocalOne: true}
	writable := map[Level]bool{One: true, Two: true, Three: true, Quorum: true, All: true, LocalQuorum: true, EachQuorum: true, LocalOne: true}
	accepts := func(local bool, r, w Level) bool {
		return readable[r] && writable[w] && (r == All || w == All || (r == Quorum && w == Quorum) ||
			(w == EachQuorum && (r == Quorum || r == LocalQuorum)) || (local && r == LocalQuorum && w == LocalQuorum))
	}
	for _, sc := range []struct {
		scope lockstep.Scope
		use   string
	}{
		{lockstep.Scope{}, "use QUORUM reads and writes, or EACH_QUORUM writes with LOCAL_QUORUM reads"},
		{lockstep.LocalTo("dc1"), "use LOCAL_QUORUM reads and writes (the default of a store local to dc1), or QUORUM reads and writes"},
	} {
		accepted, refused := 0, 0
		for _, r := range levels {
			for _, w := range levels {
				err := ValidateScope(sc.scope, r, w)
				if accepts(!sc.scope.IsGlobal(), r, w) {
					assert.NoError(t, err, "%v: read %v write %v", sc.scope, r, w)
					accepted++
					continue
				}
				refused++
				if !assert.ErrorIs(t, err, lockstep.ErrInvalidConfig, "%v: read %v write %v", sc.scope, r, w) {
					continue
				}
				assert.Contains(t, err.Error(), fmt.Sprintf("consistency: read %v, write %v", r, w), "names the pair")
				assert.Contains(t, err.Error(), sc.use, "says what to use")
			}
		}
		t.Logf("%v: %d pairs accepted, %d refused", sc.scope, accepted, refused)
	}
}

// The pairs the tracker's report named: QUORUM with LOCAL_QUORUM either
// way, on a global store.
func TestValidateScope_QuorumWithLocalQuorumSaysWhatToUse(t *testing.T) {
	for _, p := range [][2]Level{{Quorum, LocalQuorum}, {LocalQuorum, Quorum}} {
		err := ValidateScope(lockstep.Scope{}, p[0], p[1])
		require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
		assert.Equal(t, fmt.Sprintf("lockstep: invalid configuration: consistency: read %v, write %v: reads and writes do not overlap for every "+
			"replication factor (need R + W > RF): a QUORUM of the whole cluster and a LOCAL_QUORUM of one data centre can "+
			"miss each other (docs/multi-dc.md gives replication factors where they do); use QUORUM reads and writes, or "+
			"EACH_QUORUM writes with LOCAL_QUORUM reads (a data centre down then blocks writes), or make the lock DC-local "+
			"(WithLocalDC) if every contender for an id lives in one data centre", p[0], p[1]), err.Error())
	}
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
