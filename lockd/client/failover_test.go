package client_test

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd"
	"github.com/lockstep-go/lockstep/lockd/client"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

// peerKey is the key the test cluster's lockds share.
var peerKey = []byte("0123456789abcdef0123456789abcdef")

// cutListener is a listener whose connections can all be cut at once, and
// which then refuses new ones until restored: a lockd cut off from its
// clients (or killed, as far as they can tell) and back.
type cutListener struct {
	net.Listener
	mu    sync.Mutex
	conns []net.Conn
	cut   bool
}

func (l *cutListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if l.cut {
			l.mu.Unlock()
			_ = c.Close()
			continue
		}
		l.conns = append(l.conns, c)
		l.mu.Unlock()
		return c, nil
	}
}

// setCut cuts every connection and refuses new ones (true), or accepts
// again (false).
func (l *cutListener) setCut(cut bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cut = cut
	if cut {
		for _, c := range l.conns {
			_ = c.Close()
		}
		l.conns = nil
	}
}

// cluster starts n lockds of one fleet, on one store, sharing peerKey,
// each behind a cutListener.
func cluster(t *testing.T, n int) ([]*server, []*cutListener, *model.Store) {
	t.Helper()
	return clusterWith(t, n, nil)
}

// clusterWith is cluster whose lockds' migration Lockers take mig's local
// handoff, retention and planted defects (serveLockdWith).
func clusterWith(t *testing.T, n int, mig *migration.Options) ([]*server, []*cutListener, *model.Store) {
	t.Helper()
	store := newStore(t)
	var srvs []*server
	var cuts []*cutListener
	for i := range n {
		s := serveLockdWith(t, store, "lockd-"+string(rune('a'+i)), lockd.Options{PeerKey: peerKey}, mig)
		srvs, cuts = append(srvs, s), append(cuts, s.cut)
	}
	return srvs, cuts, store
}

func urls(srvs []*server) []string {
	var out []string
	for _, s := range srvs {
		out = append(out, s.url)
	}
	return out
}

func openOn(t *testing.T, srvs []*server, ttl time.Duration, knobs *client.TestingKnobs) *client.Session {
	t.Helper()
	u := urls(srvs)
	s, err := client.OpenWithKnobs(t.Context(), u[0], &client.Options{TTL: ttl, Endpoints: u[1:]}, knobs)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// requireKept checks that every lock is still held by s: not lost, the
// same fencing token, and refused to another session of the cluster.
func requireKept(t *testing.T, other *client.Session, locks []lockstep.Lock, tokens []int64) {
	t.Helper()
	for i, l := range locks {
		select {
		case <-l.Lost():
			t.Fatalf("lock %s was lost", l.ID())
		default:
		}
		require.Equal(t, tokens[i], l.(lockstep.Fenced).Token())
		if !l.(*client.Lock).Reentrant() {
			first, _, _ := strings.Cut(l.ID(), ",")
			_, err := other.TryLock(t.Context(), first)
			require.ErrorIs(t, err, lockstep.ErrLocked, "lock %s", l.ID())
		}
	}
}

func waitMoves(t *testing.T, s *client.Session, n int, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for s.Moves() < n {
		require.NoError(t, s.Err())
		if time.Since(start) > within {
			t.Fatalf("no move within %v", within)
		}
		time.Sleep(time.Millisecond)
	}
	return time.Since(start)
}

// A client whose lockd is cut off (every connection closed, none
// accepted: as a killed lockd looks to it) moves to the other lockd and
// keeps every lock: the same Lock values, fencing tokens, reentrant
// counts; Unlock then releases them there.
func TestFailover_CutLockdKeepsLocks(t *testing.T) {
	srvs, cuts, _ := cluster(t, 2)
	s := openOn(t, srvs, 2*time.Second, nil)
	other := open(t, srvs[1].url, nil)
	ctx := t.Context()
	x, err := s.Lock(ctx, "x")
	require.NoError(t, err)
	g, err := s.LockGroup(ctx, lockstep.Request{ID: "g/1"}, lockstep.Request{ID: "g/2", Access: lockstep.Shared})
	require.NoError(t, err)
	x2, err := s.Lock(ctx, "x")
	require.NoError(t, err)
	require.True(t, x2.(*client.Lock).Reentrant())
	locks := []lockstep.Lock{x, g, x2}
	tokens := []int64{x.(lockstep.Fenced).Token(), g.(lockstep.Fenced).Token(), x2.(lockstep.Fenced).Token()}

	cuts[0].setCut(true)
	took := waitMoves(t, s, 1, 2*time.Second)
	t.Logf("moved in %v", took)
	require.Equal(t, srvs[1].url, s.Endpoint())
	requireKept(t, other, locks, tokens)

	require.NoError(t, x2.Unlock(ctx))
	_, err = other.TryLock(ctx, "x")
	require.ErrorIs(t, err, lockstep.ErrLocked, "x is still counted once")
	require.NoError(t, x.Unlock(ctx))
	require.NoError(t, g.Unlock(ctx))
	// The cut lockd still renews its share of the locks until the
	// session left there lapses (its TTL, 2s): then they are free.
	y, err := other.Lock(ctx, "x")
	require.NoError(t, err)
	require.Greater(t, y.(lockstep.Fenced).Token(), tokens[0])
	_, err = other.Lock(ctx, "g/1")
	require.NoError(t, err)
}

// A lockd that hangs (answers nothing, closes nothing) is left within the
// keep-alive's cut, before any lock's time runs out.
func TestFailover_HungLockdKeepsLocks(t *testing.T) {
	srvs, _, _ := cluster(t, 2)
	s := openOn(t, srvs, 2*time.Second, nil)
	other := open(t, srvs[1].url, nil)
	x, err := s.Lock(t.Context(), "x")
	require.NoError(t, err)
	srvs[0].hang.Store(true)
	took := waitMoves(t, s, 1, 2*time.Second)
	t.Logf("moved in %v", took)
	requireKept(t, other, []lockstep.Lock{x}, []int64{x.(lockstep.Fenced).Token()})
	require.NoError(t, x.Unlock(t.Context()))
}

// A client that cannot reach another lockd loses its session and locks,
// exactly as without fail-over.
func TestFailover_NoOtherLockdLosesAsBefore(t *testing.T) {
	srvs, cuts, _ := cluster(t, 2)
	s := openOn(t, srvs, time.Second, nil)
	x, err := s.Lock(t.Context(), "x")
	require.NoError(t, err)
	cuts[1].setCut(true)
	cuts[0].setCut(true)
	lostWithin(t, x, 2*time.Second)
	<-s.Done()
	require.ErrorIs(t, s.Err(), lockstep.ErrLost)
	require.Zero(t, s.Moves())
}

// Open refuses Endpoints when the lockd has no peer key, and Endpoints
// that repeat Open's URL.
func TestFailover_OpenRefusals(t *testing.T) {
	plain := newServer(t, nil)
	_, err := client.Open(t.Context(), plain.url, &client.Options{Endpoints: []string{"http://127.0.0.1:1"}})
	require.ErrorContains(t, err, "no peer key")
	_, err = client.Open(t.Context(), plain.url, &client.Options{Endpoints: []string{plain.url}})
	require.ErrorContains(t, err, "none empty or equal to Open's")
}

// Twenty fail-overs around three lockds, each cut while the client holds
// locks: every lock is kept each time. Reports the time from the cut to
// the move's end, p50 and p99.
func TestFailover_Times(t *testing.T) {
	srvs, cuts, _ := cluster(t, 3)
	s := openOn(t, srvs, 3*time.Second, nil)
	ctx := t.Context()
	var locks []lockstep.Lock
	var tokens []int64
	for _, id := range []string{"a", "b", "c"} {
		l, err := s.Lock(ctx, id)
		require.NoError(t, err)
		locks, tokens = append(locks, l), append(tokens, l.(lockstep.Fenced).Token())
	}
	var times []time.Duration
	for i := range 20 {
		at := slices.Index(urls(srvs), s.Endpoint())
		cuts[at].setCut(true)
		times = append(times, waitMoves(t, s, i+1, 3*time.Second))
		cuts[at].setCut(false)
		other, err := client.Open(ctx, s.Endpoint(), nil)
		require.NoError(t, err)
		requireKept(t, other, locks, tokens)
		require.NoError(t, other.Close(ctx))
	}
	slices.Sort(times)
	t.Logf("20 fail-overs: p50 %v, p99 %v, max %v", times[len(times)/2], times[len(times)*99/100], times[len(times)-1])
}

// A lockd that adopts the session's locks and then fails before it hands
// out its identity's peer token is not moved to: the session moves on to
// another lockd with the token it carried, and keeps its locks at the
// next move too. (Had it settled on that lockd without a token, a second
// move would have carried none, and lost every lock.)
func TestFailover_LockdFailingBeforeItsTokenIsLeft(t *testing.T) {
	srvs, cuts, _ := cluster(t, 3)
	s := openOn(t, srvs, 3*time.Second, nil)
	ctx := t.Context()
	var locks []lockstep.Lock
	var tokens []int64
	for _, id := range []string{"a", "b"} {
		l, err := s.Lock(ctx, id)
		require.NoError(t, err)
		locks, tokens = append(locks, l), append(tokens, l.(lockstep.Fenced).Token())
	}
	srvs[1].dropGetToken.Store(true) // lockd-b answers SetToken, then fails
	cuts[0].setCut(true)
	waitMoves(t, s, 1, 3*time.Second)
	cuts[0].setCut(false)
	other := open(t, s.Endpoint(), nil)
	requireKept(t, other, locks, tokens)

	at := slices.Index(urls(srvs), s.Endpoint())
	cuts[at].setCut(true)
	waitMoves(t, s, 2, 3*time.Second)
	cuts[at].setCut(false)
	other = open(t, s.Endpoint(), nil)
	requireKept(t, other, locks, tokens)
	for _, l := range locks {
		require.NoError(t, l.Unlock(ctx))
	}
}

// An Unlock answered by the lockd whose GetToken after it is not leaves
// the session a peer token naming the released lock. When that lockd then
// fails, the other lockd adopts the token's other locks and skips the
// released one: the session moves and keeps them.
func TestFailover_UnlockThenCutKeepsTheOtherLocks(t *testing.T) {
	srvs, cuts, _ := cluster(t, 2)
	s := openOn(t, srvs, 3*time.Second, nil)
	other := open(t, srvs[1].url, nil)
	ctx := t.Context()
	x, err := s.Lock(ctx, "x")
	require.NoError(t, err)
	y, err := s.Lock(ctx, "y")
	require.NoError(t, err)
	srvs[0].dropGetToken.Store(true)
	require.NoError(t, x.Unlock(ctx)) // answered; the GetToken after it is not
	cuts[0].setCut(true)
	waitMoves(t, s, 1, 3*time.Second)
	require.NoError(t, s.Err())
	requireKept(t, other, []lockstep.Lock{y}, []int64{y.(lockstep.Fenced).Token()})
	_, err = other.TryLock(ctx, "x")
	require.NoError(t, err, "x was released, and not adopted")
	require.NoError(t, y.Unlock(ctx))
}

// A lock the client still counts held but whose share the other lockd
// finds released (here unlocked at the old lockd behind the client's back)
// is not adopted, and the client reports it lost: skipping it hides
// nothing. The session moves and keeps its other lock.
func TestFailover_LockReleasedBehindTheClientIsReportedLost(t *testing.T) {
	srvs, cuts, _ := cluster(t, 2)
	s := openOn(t, srvs, 3*time.Second, nil)
	other := open(t, srvs[1].url, nil)
	ctx := t.Context()
	x, err := s.Lock(ctx, "x")
	require.NoError(t, err)
	y, err := s.Lock(ctx, "y")
	require.NoError(t, err)
	raw := lockstepv1connect.NewLockServiceClient(http.DefaultClient, srvs[0].url)
	_, err = raw.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: s.ID(), LockId: x.(*client.Lock).Handle()}))
	require.NoError(t, err)
	cuts[0].setCut(true)
	waitMoves(t, s, 1, 3*time.Second)
	require.NoError(t, s.Err())
	lostWithin(t, x, time.Second)
	require.ErrorIs(t, x.Unlock(ctx), lockstep.ErrLost)
	requireKept(t, other, []lockstep.Lock{y}, []int64{y.(lockstep.Fenced).Token()})
	require.NoError(t, y.Unlock(ctx))
}

// A move that another lockd refuses (here a lockd of another cluster's
// peer key, which cannot verify the token) ends the session at once, and
// the error says the lockd refused, not that time ran out.
func TestFailover_RefusedMoveSaysItWasRefused(t *testing.T) {
	store := newStore(t)
	a := serveLockd(t, store, "lockd-a", lockd.Options{PeerKey: peerKey})
	b := serveLockd(t, store, "lockd-b", lockd.Options{PeerKey: []byte("another cluster's key, 32 bytes!")})
	s := open(t, a.url, &client.Options{TTL: 3 * time.Second, Endpoints: []string{b.url}})
	x, err := s.Lock(t.Context(), "x")
	require.NoError(t, err)
	start := time.Now()
	a.cut.setCut(true)
	lostWithin(t, x, 3*time.Second)
	<-s.Done()
	require.Less(t, time.Since(start), 2*time.Second, "a refusal ends the move before the TTL")
	require.ErrorIs(t, s.Err(), lockstep.ErrLost)
	require.ErrorContains(t, s.Err(), "another lockd refused to take the session and its locks over")
	require.ErrorContains(t, s.Err(), b.url)
	require.NotContains(t, s.Err().Error(), "TTL ran out")
}
