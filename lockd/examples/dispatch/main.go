package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/lockd"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "dispatch:", err)
		os.Exit(1)
	}
}

// config is the command's flags.
type config struct {
	addr, token        string
	instances, workers int
	messages           int
	process            time.Duration
	seed               uint64
	prefix             string
}

func parse(args []string) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("dispatch", flag.ContinueOnError)
	fs.StringVar(&c.addr, "addr", "", "a running lockd's URL (http://host:port); empty: start one on the embedded model")
	fs.StringVar(&c.token, "token", "", "bearer token for -addr's lockd (its principal must be granted -prefix)")
	fs.IntVar(&c.instances, "instances", 3, "service instances, each with its own message stream")
	fs.IntVar(&c.workers, "workers", 4, "workers per instance")
	fs.IntVar(&c.messages, "messages", 40, "messages per instance")
	fs.DurationVar(&c.process, "process", 5*time.Millisecond, "mean time a worker takes to process a message")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the message streams")
	fs.StringVar(&c.prefix, "prefix", "bank", "the key hierarchy's root")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	case c.instances < 1 || c.workers < 1 || c.messages < 1:
		return nil, fmt.Errorf("-instances, -workers and -messages must be at least 1")
	case c.process <= 0:
		return nil, fmt.Errorf("-process must be positive")
	case c.prefix == "" || strings.Contains(c.prefix, "/"):
		return nil, fmt.Errorf("-prefix must be one non-empty segment, without %q", "/")
	case c.token != "" && c.addr == "":
		return nil, fmt.Errorf("-token needs -addr: the lockd this command starts is open (loopback only)")
	}
	return c, nil
}

func run(ctx context.Context, args []string, out io.Writer) error {
	c, err := parse(args)
	if err != nil {
		return err
	}
	addr := c.addr
	if addr == "" {
		stop, a, err := serveEmbedded(ctx)
		if err != nil {
			return err
		}
		defer stop()
		addr = a
		fmt.Fprintf(out, "lockd on the embedded model at %s\n", addr)
	}
	var opts []connect.ClientOption
	if c.token != "" {
		opts = append(opts, connect.WithInterceptors(bearer(c.token)))
	}
	client := lockstepv1connect.NewLockServiceClient(http.DefaultClient, addr, opts...)

	rec := &recorder{}
	var wg sync.WaitGroup
	errs := make([]error, c.instances)
	for i := range c.instances {
		msgs := stream(c.prefix, c.messages, rand.New(rand.NewPCG(c.seed, uint64(i))))
		wg.Go(func() { errs[i] = instance(ctx, client, i, c.workers, c.process, msgs, rec, c.seed) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return rec.report(out, c)
}

// serveEmbedded starts a lockd on loopback, on the embedded model in the
// new mode (intention accesses on ancestors), and returns how to stop it
// and its URL.
func serveEmbedded(ctx context.Context) (stop func(), addr string, err error) {
	store := model.New(&clock.Local{})
	// a fresh fleet is in the legacy phase: move it to new, one step at a
	// time, as an operator would with lockctl phase set
	ctl, err := migration.NewController(store, nil)
	if err != nil {
		return nil, "", err
	}
	for _, step := range []lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew} {
		if err := ctl.Set(ctx, step); err != nil {
			return nil, "", fmt.Errorf("phase %v: %w", step, err)
		}
	}
	locker, err := migration.New(store, migration.Static(lockstep.ModeNew), &migration.Options{Separator: "/"})
	if err != nil {
		return nil, "", err
	}
	srv, err := lockd.New(locker, nil) // open mode: loopback only
	if err != nil {
		return nil, "", errors.Join(err, locker.Close(ctx))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", errors.Join(err, srv.Close(ctx), locker.Close(ctx))
	}
	hs := &http.Server{Handler: srv.Handler()}
	go func() { _ = hs.Serve(ln) }()
	return func() {
		_ = hs.Close()
		_ = srv.Close(ctx)
		_ = locker.Close(ctx)
	}, "http://" + ln.Addr().String(), nil
}

// bearer adds a bearer token to every call.
func bearer(token string) connect.UnaryInterceptorFunc {
	return func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			req.Header().Set("Authorization", "Bearer "+token)
			return next(ctx, req)
		}
	}
}
