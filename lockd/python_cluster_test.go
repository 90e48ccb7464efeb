package lockd_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/lockd"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

// pyLockd is one lockd of the Python client's fail-over cluster, with the
// faults a test can switch on (pyCluster's control).
type pyLockd struct {
	f   *fixture
	cut *cutListener
	// hang makes every new request wait for its caller to give up, as a
	// lockd that hangs, or a link that loses every packet, would.
	hang atomic.Bool
	// slowSetToken delays every SetToken by that long before lockd serves
	// it: a move whose adoption is answered late.
	slowSetToken atomic.Int64
	unhang       chan struct{}
}

// newPyCluster starts n lockds of one cluster — one model store in phase
// new, fencing, one peer key (peerKey), the options opts — each behind a
// cuttableListener and a faulty handler. The store is made here, so the
// fixtures leave the goroutine check to the test's first fixture.
func newPyCluster(t *testing.T, n int, opts lockd.Options, lockTTL time.Duration) []*pyLockd {
	t.Helper()
	ctx := context.Background()
	store := model.New(&clock.Local{})
	ctl, err := migration.NewController(store, nil)
	require.NoError(t, err)
	require.NoError(t, ctl.Set(ctx, lockstep.ModeCombined))
	require.NoError(t, ctl.Set(ctx, lockstep.ModeNew))
	opts.PeerKey = peerKey
	var out []*pyLockd
	for i := range n {
		l := &pyLockd{unhang: make(chan struct{})}
		l.f = newFixture(t, fixtureOptions{opts: opts, store: store, process: "lockd-" + string(rune('a'+i)), lockTTL: lockTTL,
			listener: func(ln net.Listener) net.Listener {
				l.cut = &cutListener{Listener: ln}
				return l.cut
			},
			handler: l.faulty})
		out = append(out, l)
	}
	t.Cleanup(func() { // before the fixtures' cleanups: no request stays hung
		for _, l := range out {
			close(l.unhang)
		}
	})
	return out
}

// faulty serves h with the lockd's faults.
func (l *pyLockd) faulty(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d := time.Duration(l.slowSetToken.Load()); d > 0 && strings.HasSuffix(r.URL.Path, "/SetToken") {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			case <-l.unhang:
			}
		}
		if l.hang.Load() {
			select {
			case <-r.Context().Done():
			case <-l.unhang:
			}
			return
		}
		h.ServeHTTP(w, r)
	})
}

// control serves the cluster's faults to the Python tests: POST
// <prefix>/<i>/cut (every connection of lockd i closed, none accepted, as
// a killed lockd looks to a client), <prefix>/<i>/hang, <prefix>/<i>/slow-set-token?ms=N,
// <prefix>/<i>/drain (lockd i shut down gracefully, answered once its
// drain is over, and started again on its address), and <prefix>/<i>/restore
// (every fault off).
func pyClusterControl(lockds []*pyLockd) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		if r.Method != http.MethodPost || len(parts) != 3 || parts[0] != "lockd" {
			http.Error(w, "POST /lockd/<i>/cut|hang|slow-set-token|drain|restore", http.StatusNotFound)
			return
		}
		i, err := strconv.Atoi(parts[1])
		if err != nil || i < 0 || i >= len(lockds) {
			http.Error(w, fmt.Sprintf("lockd %q: want 0 to %d", parts[1], len(lockds)-1), http.StatusNotFound)
			return
		}
		l := lockds[i]
		switch parts[2] {
		case "cut":
			l.cut.setCut(true)
		case "hang":
			l.hang.Store(true)
		case "slow-set-token":
			ms, err := strconv.Atoi(r.URL.Query().Get("ms"))
			if err != nil {
				http.Error(w, "slow-set-token?ms=<milliseconds>", http.StatusBadRequest)
				return
			}
			l.slowSetToken.Store(int64(time.Duration(ms) * time.Millisecond))
		case "drain": // a graceful shutdown, and the lockd started again
			if err := l.f.drainAndRestart(); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		case "restore":
			l.cut.setCut(false)
			l.hang.Store(false)
			l.slowSetToken.Store(0)
		default:
			http.Error(w, "unknown fault "+parts[2], http.StatusNotFound)
		}
	})
}

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
