//go:build lockstep_bugs

package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/lockd/client"
)

// With IgnoreValidFor planted, a lockd that hangs leaves the lock held by
// the session's TTL alone: still not lost well past the valid_for of the
// last answer — the defect the robustness control plants.
func TestSession_IgnoreValidForKeepsALockPastItsTime(t *testing.T) {
	f := &scripted{ttl: 30 * time.Second, grantValid: time.Second, aliveValid: 300 * time.Millisecond}
	s, err := client.OpenWithKnobs(t.Context(), serveScripted(t, f), nil, &client.TestingKnobs{IgnoreValidFor: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	l, err := s.Lock(t.Context(), "x")
	require.NoError(t, err)
	time.Sleep(400 * time.Millisecond)
	f.hang.Store(true)
	time.Sleep(1500 * time.Millisecond) // five valid_fors
	select {
	case <-l.Lost():
		t.Fatal("lost: the planted defect did not keep the lock past its valid_for")
	default:
	}
}
