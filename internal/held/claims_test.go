package held

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClaims_NilNotesNothing(t *testing.T) {
	var c *Claims
	c.Claiming()(true)
}

func TestClaims_NotesInOrderAndWakesOnce(t *testing.T) {
	c := NewClaims()
	c.Claiming()(false)
	settled := c.Claiming()
	select {
	case <-c.Noted():
	default:
		t.Fatal("no wake-up after a note")
	}
	select {
	case <-c.Noted():
		t.Fatal("a second wake-up for notes not read yet")
	default:
	}
	assert.Equal(t, []ClaimNote{{Claim: 1}, {Claim: 1, Settled: true}, {Claim: 2}}, c.Notes())
	settled(true)
	assert.Equal(t, []ClaimNote{{Claim: 2, Settled: true, Won: true}}, c.Notes())
	assert.Empty(t, c.Notes())
}
