package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/buildinfo"
	"github.com/lockstep-go/lockstep/lockd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv, nil); err != nil {
		fmt.Fprintln(os.Stderr, "lockd:", err)
		os.Exit(1)
	}
}

// run parses args, joins the fleet, serves until ctx ends, then shuts down
// gracefully. It prints the address it serves on to stdout, one line, and
// sends the address to ready when it is non-nil (for tests).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string, ready chan<- string) error {
	o, err := parseOptions(args, getenv, stderr)
	if errors.Is(err, pflag.ErrHelp) {
		return nil // --help: the usage is printed
	}
	if err != nil {
		return err
	}
	if o.showVersion {
		fmt.Fprintln(stdout, version())
		return nil
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: o.logLevel}))
	tlsCfg, tlsCur, err := serverTLS(o)
	if err != nil {
		return err
	}
	var principals *lockd.Principals
	if o.principals != "" {
		if principals, err = lockd.LoadPrincipals(o.principals); err != nil {
			return err
		}
	}
	var peerKey []byte
	if o.peerKeyFile != "" {
		if peerKey, err = os.ReadFile(o.peerKeyFile); err != nil {
			return fmt.Errorf("--peer-key-file: %w", err)
		}
		peerKey = bytes.TrimRight(peerKey, "\r\n")
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", o.listen, err)
	}
	defer ln.Close()
	if principals == nil && !isLoopback(ln.Addr()) {
		return fmt.Errorf("--listen %s is not a loopback address and no --principals file is given: anyone who reaches it could take and release every lock; give --principals (and TLS), or listen on 127.0.0.1", o.listen)
	}
	store, where, closeStore, err := openStore(ctx, o, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	m, err := newMetrics(o.metrics)
	if err != nil {
		return err
	}
	rec := newRecorder(o.ui)
	obs := m.observer
	if rec != nil {
		obs = lockd.Observers(m.observer, rec)
	}
	locker, err := join(store, o, log, obs)
	if err != nil {
		return schemaHint(o, err)
	}
	srv, err := lockd.New(locker, &lockd.Options{Principals: principals, SessionTTL: o.sessionTTL, MaxWait: o.maxWait, Drain: o.drain, Logger: log, Metrics: m.lockd, PeerKey: peerKey, Limits: o.limits})
	if err != nil {
		_ = locker.Close(context.Background())
		return err
	}
	h, err := withView(m.handler(srv.Handler()), srv, store, rec)
	if err != nil {
		_ = locker.Close(context.Background())
		return err
	}
	rl := &reloader{o: o, srv: srv, tls: tlsCur, log: log}
	return serve(ctx, ln, tlsCfg != nil, o, srv, h, locker, tlsCfg, stdout, log, ready, principals != nil, where, rl)
}

// serve runs the HTTP server (HTTP/1.1, HTTP/2 over TLS, or cleartext h2c)
// until ctx ends, reloading the credentials on each SIGHUP (rl), then: the lock server closes its sessions (watchers are
// told CLOSED), the HTTP server drains, and the Locker releases what is
// left and leaves the census.
func serve(ctx context.Context, ln net.Listener, useTLS bool, o *options, srv *lockd.Server, h http.Handler, locker lockstep.Locker,
	tlsCfg *tls.Config, stdout io.Writer, log *slog.Logger, ready chan<- string, secured bool, where string, rl *reloader) error {
	hs := newHTTPServer(h, o, tlsCfg, log)
	scheme, mode := "http", "open mode: every caller may take every id (loopback only)"
	if useTLS {
		scheme = "https"
	}
	if secured {
		mode = "principals from " + o.principals
	}
	fmt.Fprintf(stdout, "lockd: serving lockstep.v1 on %s://%s (store: %s; %s)\n", scheme, ln.Addr(), where, mode)
	fmt.Fprintf(stdout, "lockd: %s\n", version())
	if ready != nil {
		ready <- scheme + "://" + ln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() {
		if useTLS {
			errc <- hs.ServeTLS(ln, "", "")
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	var serveErr error
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case serveErr = <-errc:
			done = true
		case <-hup:
			rl.reload()
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), o.shutdown)
	defer cancel()
	closeErr := srv.Close(sctx)
	shutErr := hs.Shutdown(sctx)
	if serveErr == nil {
		if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
			serveErr = err
		}
	}
	lockErr := locker.Close(sctx)
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	return errors.Join(serveErr, closeErr, shutErr, lockErr)
}

// isLoopback reports whether addr is a loopback address.
func isLoopback(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// version is lockd's version and the commit it was built from
// (buildinfo.Describe), the release of the library (lockstep.Version) and the Go
// version.
func version() string {
	info, _ := debug.ReadBuildInfo()
	v, commit := buildinfo.Describe(info, lockdModule)
	return fmt.Sprintf("lockd %s commit %s (lockstep %s, %s)", v, commit, lockstep.Version, runtime.Version())
}
