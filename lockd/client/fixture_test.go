package client_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
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

// server is a lockd on a loopback port, on the model store in phase new,
// with fencing and deadlock detection, behind a switch that can refuse
// keep-alives (as if they were cut off) and drop every connection.
type server struct {
	url           string
	hs            *http.Server
	dropKeepAlive atomic.Bool
	// dropGetToken refuses GetToken with Unavailable: a lockd that fails
	// after answering an earlier call and before answering GetToken.
	dropGetToken atomic.Bool
	// dropOpen closes the connection of that many OpenSession calls
	// before lockd reads them, with no answer: a keep-alive connection
	// the lockd closed, or a lockd that dies under the call.
	dropOpen atomic.Int32
	// hang makes every request wait for its caller to give up, as a lockd
	// that hangs, or a link that loses every packet, would.
	hang atomic.Bool
	cut  *cutListener
	// srv is the lock service, for a graceful shutdown's Close.
	srv *lockd.Server
	// unhang, closed at cleanup, ends the requests hang holds.
	unhang chan struct{}
	// delay holds every request until it is switched off, then serves it:
	// a lockd that stalls (paused) and then goes on.
	delay atomic.Bool
	// delayed counts the requests delay held; lockAnswers the Lock
	// requests answered.
	delayed, lockAnswers atomic.Int32
}

func newServer(t *testing.T, principals *lockd.Principals) *server {
	t.Helper()
	return serveLockd(t, newStore(t), "lockd-client-test", lockd.Options{Principals: principals})
}

// newStore returns a model store of a fleet in phase new.
func newStore(t *testing.T) *model.Store {
	t.Helper()
	ctx := context.Background()
	store := model.New(&clock.Local{})
	ctl, err := migration.NewController(store, nil)
	require.NoError(t, err)
	require.NoError(t, ctl.Set(ctx, lockstep.ModeCombined))
	require.NoError(t, ctl.Set(ctx, lockstep.ModeNew))
	return store
}

// serveLockd serves a lockd of the fleet on store, as process, with opts
// (MinTTL 500ms and a discarding logger unless set).
func serveLockd(t *testing.T, store *model.Store, process string, opts lockd.Options) *server {
	t.Helper()
	return serveLockdWith(t, store, process, opts, nil)
}

// serveLockdWith is serveLockd whose migration Locker takes, besides the
// fixture's options, mig's LocalHandoff, Retain and TestingKnobs (nil: none).
func serveLockdWith(t *testing.T, store *model.Store, process string, opts lockd.Options, mig *migration.Options) *server {
	t.Helper()
	flag, err := migration.NewPhaseFlag(store, nil)
	require.NoError(t, err)
	fencing, err := clock.NewGlobal(store, "", &clock.Local{})
	require.NoError(t, err)
	mo := &migration.Options{Separator: "/", Fencing: fencing, ProcessID: process, Deadlock: &lockstep.DeadlockDetection{}}
	if mig != nil {
		mo.LocalHandoff, mo.Retain, mo.TestingKnobs = mig.LocalHandoff, mig.Retain, mig.TestingKnobs
	}
	locker, err := migration.New(store, flag, mo)
	require.NoError(t, err)
	if opts.MinTTL == 0 {
		opts.MinTTL = 500 * time.Millisecond
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	srv, err := lockd.New(locker, &opts)
	require.NoError(t, err)
	s := &server{unhang: make(chan struct{}), srv: srv}
	h := srv.Handler()
	s.hs = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.hang.Load() {
			select {
			case <-r.Context().Done():
			case <-s.unhang:
			}
			return
		}
		if s.delay.Load() {
			s.delayed.Add(1)
		}
		for s.delay.Load() {
			select {
			case <-r.Context().Done():
				return
			case <-s.unhang:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
		if strings.HasSuffix(r.URL.Path, "/OpenSession") && s.dropOpen.Add(-1) >= 0 {
			if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
				_ = c.Close()
			}
			return
		}
		if s.dropKeepAlive.Load() && strings.HasSuffix(r.URL.Path, "/KeepAlive") ||
			s.dropGetToken.Load() && strings.HasSuffix(r.URL.Path, "/GetToken") {
			http.Error(w, "cut off", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
		if strings.HasSuffix(r.URL.Path, "/Lock") {
			s.lockAnswers.Add(1)
		}
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s.url = "http://" + ln.Addr().String()
	s.cut = &cutListener{Listener: ln}
	go func() { _ = s.hs.Serve(s.cut) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		close(s.unhang)
		_ = srv.Close(ctx)
		_ = s.hs.Shutdown(ctx)
		_ = locker.Close(ctx)
	})
	return s
}

// drop closes the listener and every connection at once, as a lockd
// process killed would have the kernel do.
func (s *server) drop() { _ = s.hs.Close() }

func principals(t *testing.T) *lockd.Principals {
	t.Helper()
	doc := fmt.Sprintf(`{"principals": [{"name": "billing", "token_sha256": [%q], "prefixes": ["billing/"]}]}`, lockd.TokenDigest("tok-billing"))
	p, err := lockd.ParsePrincipals([]byte(doc))
	require.NoError(t, err)
	return p
}

func lostWithin(t *testing.T, l lockstep.Lock, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	select {
	case <-l.Lost():
		return time.Since(start)
	case <-time.After(d):
		t.Fatalf("the lock was not lost within %v", d)
	}
	return 0
}
