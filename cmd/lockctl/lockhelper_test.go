package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The commands lock runs in its tests are this test binary, run again as a
// helper process (the os/exec tests' pattern): TestHelperProcess does what
// its arguments after "--" say when envHelper is set, and nothing otherwise.

const envHelper = "LOCKCTL_TEST_HELPER"

// helperCommand is the command line, after lock's "--", that runs the
// helper with args.
func helperCommand(args ...string) []string {
	return append([]string{os.Args[0], "-test.run=^TestHelperProcess$", "--"}, args...)
}

// helperEnviron is the environment lock passes to the helper. Under the
// race detector a process exiting 0 sleeps a second first, unless GORACE
// says otherwise.
func helperEnviron(extra ...string) func() []string {
	return func() []string {
		return append(append(os.Environ(), envHelper+"=1", "GORACE=atexit_sleep_ms=0"), extra...)
	}
}

// TestHelperProcess is not a test: it is the command lock runs.
//
//	exit N        exit with status N
//	kill-self     die of SIGKILL
//	env           print the lock's variables, "ready", then wait for stdin to end
//	sleep         print "ready", then sleep (until a signal ends it)
//	ignore-term   ignore SIGTERM, print "ready", then sleep
//	trap          print "ready", then on SIGINT or SIGTERM print "got <signal>" and exit 42
func TestHelperProcess(t *testing.T) {
	if os.Getenv(envHelper) != "1" {
		return
	}
	args := os.Args
	for len(args) > 0 && args[0] != "--" {
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "helper: no command")
		os.Exit(2)
	}
	const nap = 30 * time.Second // bounds a helper nobody stopped
	switch args[1] {
	case "exit":
		n, _ := strconv.Atoi(args[2])
		os.Exit(n)
	case "kill-self":
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			_ = p.Kill() // SIGKILL
		}
		time.Sleep(nap)
	case "env":
		for _, k := range []string{envLockID, envToken, envOwner} {
			fmt.Printf("%s=%s\n", k, os.Getenv(k))
		}
		fmt.Println("ready")
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	case "sleep":
		fmt.Println("ready")
		time.Sleep(nap)
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		time.Sleep(nap)
	case "trap":
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
		fmt.Println("ready")
		select {
		case s := <-ch:
			fmt.Printf("got %v\n", s)
			os.Exit(42)
		case <-time.After(nap):
		}
	}
	os.Exit(99)
}

// output is a stdout for lock's command that the test reads while the
// command runs: safe for concurrent use, and ready closes once the command
// printed a line "ready".
type output struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
}

func newOutput() *output { return &output{ready: make(chan struct{})} }

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	had := strings.Contains(o.buf.String(), "ready\n")
	o.buf.Write(p)
	if !had && strings.Contains(o.buf.String(), "ready\n") {
		close(o.ready)
	}
	return len(p), nil
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// awaitReady waits until the command printed "ready" or run ended.
func (o *output) awaitReady(t *testing.T, ended <-chan int) {
	t.Helper()
	select {
	case <-o.ready:
	case code := <-ended:
		t.Fatalf("lockctl exited %d before the command was ready; stdout %q", code, o.String())
	case <-time.After(10 * time.Second):
		t.Fatalf("the command never printed ready; stdout %q", o.String())
	}
}
