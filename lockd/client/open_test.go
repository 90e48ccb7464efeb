package client_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/lockd/client"
)

// A connection closed under Open's OpenSession with no answer (a
// keep-alive connection the lockd closed, here the first call's own) is
// not the end: Open tries again and opens the session.
func TestOpen_ConnectionClosedUnderTheCallIsTriedAgain(t *testing.T) {
	srv := newServer(t, nil)
	srv.dropOpen.Store(1)
	s := open(t, srv.url, nil)
	require.Equal(t, srv.url, s.Endpoint())
	_, err := s.Lock(t.Context(), "x")
	require.NoError(t, err)
}

// With Endpoints, a lockd that cannot answer Open is passed over: the
// session opens on the next one. Every lockd failing fails Open, naming
// each.
func TestOpen_FailsOverToTheNextEndpoint(t *testing.T) {
	srvs, cuts, _ := cluster(t, 3)
	srvs[0].dropOpen.Store(math.MaxInt32) // answers no OpenSession
	cuts[1].setCut(true)                  // accepts no connection
	s := openOn(t, srvs, 2*time.Second, nil)
	require.Equal(t, srvs[2].url, s.Endpoint())
	_, err := s.Lock(t.Context(), "x")
	require.NoError(t, err)

	srvs[2].dropOpen.Store(math.MaxInt32)
	_, err = client.Open(t.Context(), srvs[0].url, &client.Options{Endpoints: urls(srvs)[1:]})
	require.ErrorContains(t, err, "no lockd opened the session")
	for _, u := range urls(srvs) {
		require.ErrorContains(t, err, u)
	}
}
