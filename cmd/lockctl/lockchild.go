package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lockstep-go/lockstep"
)

// Running lock's command under the lock: start it with the lock's
// environment, wait for it, and stop it when the lock is lost or lockctl is
// told to stop.

// The environment variables lock adds to the command's environment.
const (
	envLockID = "LOCKSTEP_LOCK_ID"
	envToken  = "LOCKSTEP_FENCING_TOKEN"
	envOwner  = "LOCKSTEP_LOCK_OWNER"
)

// lostError reports a command stopped because its lock was lost (exit 5,
// as runHolding marks it).
type lostError struct {
	id     string
	grace  time.Duration
	killed bool // SIGTERM was not enough
	status int  // the command's own exit status
}

func (e *lostError) Error() string {
	how := fmt.Sprintf("stopped it with SIGTERM (it exited with status %d)", e.status)
	if e.killed {
		how = fmt.Sprintf("stopped it with SIGTERM and, still running after --grace %v, SIGKILL", e.grace)
	}
	return fmt.Sprintf("lock %q was lost while the command ran (its lease could not be renewed in time; another owner "+
		"may take it now): %s", e.id, how)
}

// runHolding runs c's command while l is held and returns how it ended:
// nil for status 0, an exitStatus for any other status (128+N for signal N),
// a *lostError (exit 5) if l was lost first, or a failure to start it.
func (a *app) runHolding(ctx context.Context, c lockCmd, l lockstep.Lock) error {
	if ctx.Err() != nil { // a signal arrived as the lock was taken
		sig := interruption(ctx)
		return &exitError{code: 128 + int(sig), err: fmt.Errorf("interrupted (%v) as lock %q was taken; the command did not run", sig, c.id)}
	}
	cmd := &exec.Cmd{Path: c.path, Args: c.argv, Stdin: a.stdin, Stdout: a.stdout, Stderr: a.stderr, Env: lockEnv(a.environ(), l)}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %q under lock %q: %w", c.argv[0], c.id, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // ends when the command does

	var lost bool
	var stop os.Signal
	select {
	case err := <-exited:
		return commandStatus(cmd, err)
	case <-l.Lost():
		lost, stop = true, syscall.SIGTERM
	case <-ctx.Done():
		stop = interruption(ctx) // forwarded
	}
	killed := stopCommand(cmd, exited, stop, c.grace)
	status := commandStatus(cmd, nil)
	if !lost {
		return status
	}
	var st exitStatus
	errors.As(status, &st)
	return &exitError{code: exitLost, err: &lostError{id: c.id, grace: c.grace, killed: killed, status: int(st)}}
}

// stopCommand sends sig to the command, gives it grace to exit, then kills
// it; it returns once the command has exited (Wait returned on exited),
// reporting whether it had to kill it.
func stopCommand(cmd *exec.Cmd, exited <-chan error, sig os.Signal, grace time.Duration) (killed bool) {
	_ = cmd.Process.Signal(sig) // fails only if it has exited already
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-exited:
		return false
	case <-t.C:
	}
	_ = cmd.Process.Kill()
	<-exited
	return true
}

// commandStatus maps how the command ended to lock's result: nil for
// status 0, else an exitStatus (128+N if signal N ended it); a command
// whose end is unknown (Wait failed before it started) is a failure.
func commandStatus(cmd *exec.Cmd, waitErr error) error {
	ps := cmd.ProcessState
	if ps == nil {
		return fmt.Errorf("waiting for %q: %w", cmd.Args[0], waitErr)
	}
	code := ps.ExitCode()
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	if code == 0 {
		return nil
	}
	return exitStatus(code)
}

// lockEnv is env with the lock's id, fencing token and owner added; any
// value they had in env is replaced (a lock run inside another's command
// names its own).
func lockEnv(env []string, l lockstep.Lock) []string {
	var token int64
	if f, ok := l.(lockstep.Fenced); ok {
		token = f.Token()
	}
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case envLockID, envToken, envOwner:
			continue
		}
		out = append(out, kv)
	}
	return append(out, envLockID+"="+l.ID(), envToken+"="+strconv.FormatInt(token, 10), envOwner+"="+l.Owner())
}
