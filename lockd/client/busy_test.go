package client_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/lockd/client"
)

// A session whose caller takes a lock more often than the keep-alive
// loop's wait (a third of the TTL) stays alive: each new lock may bring
// the next KeepAlive forward, never put it off, so the calls keep going
// out and the session outlives several TTLs.
func TestSession_BusyCallerKeepsTheSessionAlive(t *testing.T) {
	srv := newServer(t, nil)
	s := open(t, srv.url, &client.Options{TTL: time.Second})
	ctx := t.Context()
	for i := range 30 { // 30 × 100 ms: three TTLs
		l, err := s.Lock(ctx, fmt.Sprintf("busy-%d", i))
		require.NoError(t, err, "lock %d", i)
		time.Sleep(100 * time.Millisecond)
		require.NoError(t, l.Unlock(ctx), "unlock %d", i)
	}
	require.NoError(t, s.Err(), "the session lapsed while its caller kept taking locks")
}
