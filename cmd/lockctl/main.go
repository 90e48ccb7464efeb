package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := newApp(os.Stdin, os.Stdout, os.Stderr).run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// app is one invocation's world: where it reads and writes, how it reaches
// the cluster and what time it is. Tests replace connect and now.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	connect        func(ctx context.Context, o *options) (*conn, error)
	now            func() time.Time
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{stdin: stdin, stdout: stdout, stderr: stderr, connect: dial, now: time.Now}
}

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// run parses args, runs the command and returns the exit code. Errors go to
// stderr as one line.
func (a *app) run(ctx context.Context, args []string) int {
	inv, err := parse(args)
	if errors.Is(err, errHelp) {
		fmt.Fprint(a.stdout, usage(inv))
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "lockctl: %s\n", oneLine(err))
		fmt.Fprintf(a.stderr, "run 'lockctl help' for usage\n")
		return exitUsage
	}
	if err := inv.cmd.run(ctx, a, inv.opts); err != nil {
		fmt.Fprintf(a.stderr, "lockctl: %s\n", oneLine(err))
		return exitFailed
	}
	return exitOK
}

// oneLine flattens an error message to one line (driver and joined errors
// may span several).
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// usage returns the help text: the command's when inv names one, else the
// overview.
func usage(inv *invocation) string {
	var b strings.Builder
	if inv != nil && inv.spec != nil {
		fmt.Fprintf(&b, "usage: lockctl [global flags] %s\n\n%s\n", inv.spec.usage, inv.spec.summary)
		fs := newFlagSet(inv.spec.path)
		inv.spec.bind(fs)
		fs.VisitAll(func(f *flag.Flag) {
			fmt.Fprintf(&b, "  --%-18s %s", f.Name, f.Usage)
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0s" {
				fmt.Fprintf(&b, " (default %s)", f.DefValue)
			}
			b.WriteString("\n")
		})
		b.WriteString(globalHelp)
		return b.String()
	}
	b.WriteString("usage: lockctl [global flags] <command> [flags] [arguments]\n\ncommands:\n")
	for _, s := range specs {
		fmt.Fprintf(&b, "  %-44s %s\n", s.usage, s.summary)
	}
	b.WriteString(globalHelp)
	return b.String()
}

const globalHelp = `
global flags (before or after the command):
  --hosts HOSTS        comma-separated contact points, host or host:port (default $CASSANDRA_HOSTS, else 127.0.0.1)
  --keyspace NAME      the lock keyspace (default locks)
  --consistency LEVEL  read and write consistency (default QUORUM)
  --timeout D          connect and per-request timeout (default 10s)
  --table K=NAME       use table NAME for the table whose default name is K (repeatable)
`
