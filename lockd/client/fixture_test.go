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
}

func newServer(t *testing.T, principals *lockd.Principals) *server {
	t.Helper()
	ctx := context.Background()
	store := model.New(&clock.Local{})
	ctl, err := migration.NewController(store, nil)
	require.NoError(t, err)
	require.NoError(t, ctl.Set(ctx, lockstep.ModeCombined))
	require.NoError(t, ctl.Set(ctx, lockstep.ModeNew))
	flag, err := migration.NewPhaseFlag(store, nil)
	require.NoError(t, err)
	fencing, err := clock.NewGlobal(store, "", &clock.Local{})
	require.NoError(t, err)
	locker, err := migration.New(store, flag, &migration.Options{Separator: "/", Fencing: fencing, ProcessID: "lockd-client-test",
		Deadlock: &lockstep.DeadlockDetection{}})
	require.NoError(t, err)
	srv, err := lockd.New(locker, &lockd.Options{Principals: principals, MinTTL: 500 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	s := &server{}
	h := srv.Handler()
	s.hs = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.dropKeepAlive.Load() && strings.HasSuffix(r.URL.Path, "/KeepAlive") {
			http.Error(w, "cut off", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s.url = "http://" + ln.Addr().String()
	go func() { _ = s.hs.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
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
