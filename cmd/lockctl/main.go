package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
)

func main() {
	ctx, stop := notifySignals(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := newApp(os.Stdin, os.Stdout, os.Stderr).run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// notifySignals returns a copy of parent cancelled when one of sigs
// arrives, with a signalReceived cause naming it (lock forwards that signal
// to its command), and a stop function that unregisters the signals and
// waits for the goroutine it started. Later signals are ignored until stop.
func notifySignals(parent context.Context, sigs ...os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case s := <-ch:
			cancel(signalReceived{s})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
		<-done
	}
}

// signalReceived is the cause of main's context ending on a signal.
type signalReceived struct{ sig os.Signal }

func (s signalReceived) Error() string { return s.sig.String() + " signal received" }

// app is one invocation's world: where it reads and writes, how it reaches
// the cluster, what time it is and what the environment says. Tests replace
// connect (with the model store), now, clock, getenv, environ and exec.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	connect        func(ctx context.Context, o *options) (*conn, error)
	now            func() time.Time
	// clock times the leases of the locks lockctl takes (lock) and the
	// local part of their fencing tokens.
	clock  lockstep.Clock
	getenv func(string) string
	// environ is the environment lock passes to its command, before the
	// lock's own variables.
	environ func() []string
	// exec runs a parsed, validated command; tests capture it instead.
	exec func(ctx context.Context, c command, o *options) error
	// progressEvery is how often a long wait (phase set --drain) reports
	// on stderr.
	progressEvery time.Duration
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, now: time.Now, clock: &clock.Local{}, getenv: os.Getenv,
		environ: os.Environ, progressEvery: 5 * time.Second}
	a.connect = a.dial
	a.exec = func(ctx context.Context, c command, o *options) error { return c.run(ctx, a, o) }
	return a
}

// command is a parsed command, ready to run. run returns an error for a
// failure; the caller prints it.
type command interface {
	run(ctx context.Context, a *app, o *options) error
}

// run parses args, runs the command and returns the exit code. A failure
// is reported on stderr: one line, or for a mistyped command the line and
// cobra's suggestions; with --output json also as a JSON document on stdout
// (jsonerror.go).
func (a *app) run(ctx context.Context, args []string) int {
	if passwordOnCommandLine(args) {
		err := errors.New(passwordFlagRefused)
		a.reportUsage(err)
		if wantsJSON(args, a.getenv) {
			a.reportJSON(err, exitUsage)
		}
		return exitUsage
	}
	root := a.rootCommand()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var status exitStatus
	if errors.As(err, &status) {
		return int(status) // lock's command spoke for itself
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		// Cobra's own errors: an unknown command, a flag it cannot parse.
		ee = &exitError{code: exitUsage, err: err}
	}
	if ee.code == exitUsage {
		a.reportUsage(err)
	} else {
		fmt.Fprintf(a.stderr, "lockctl: %s\n", oneLine(err))
	}
	if wantsJSON(args, a.getenv) {
		a.reportJSON(err, ee.code)
	}
	return ee.code
}

// reportUsage prints a usage error: its first line, any further lines
// (cobra's "Did you mean this?") as they are, and where help is.
func (a *app) reportUsage(err error) {
	first, rest, _ := strings.Cut(strings.TrimRight(err.Error(), "\n"), "\n")
	fmt.Fprintf(a.stderr, "lockctl: %s\n", first)
	if rest = strings.Trim(rest, "\n"); rest != "" {
		fmt.Fprintf(a.stderr, "\n%s\n\n", rest)
	}
	fmt.Fprintln(a.stderr, "Run 'lockctl --help' for usage.")
}
