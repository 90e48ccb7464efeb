package lockstep_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/lockstep-go/lockstep"
)

func TestRequest_StringShowsItsFlags(t *testing.T) {
	assert.Equal(t, "a:S", lockstep.Request{ID: "a", Access: lockstep.Shared}.String())
	assert.Equal(t, "a:X:flat|no-mask", lockstep.Request{ID: "a", Flags: lockstep.Flat | lockstep.NoMask}.String())
	assert.Equal(t, "a:X:flags(0x80)", lockstep.Request{ID: "a", Flags: 0x80}.String())
}

func TestFlags_Valid(t *testing.T) {
	for _, f := range []lockstep.Flags{0, lockstep.Flat, lockstep.NoMask, lockstep.Flat | lockstep.NoMask} {
		assert.True(t, f.Valid(), "%v", f)
	}
	assert.False(t, lockstep.Flags(4).Valid())
}
