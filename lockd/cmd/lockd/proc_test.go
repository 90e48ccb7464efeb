package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/lockstep-go/lockstep/lockd"
)

// The tests of this file's helpers run lockd as the operator does: the
// binary built from this package, a subprocess on a loopback port.

var build struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	os.Exit(code)
}

// lockdBinary builds lockd once per test binary.
func lockdBinary(t *testing.T) string {
	t.Helper()
	build.once.Do(func() {
		if build.dir, build.err = os.MkdirTemp("", "lockd-bin-"); build.err != nil {
			return
		}
		build.bin = filepath.Join(build.dir, "lockd")
		out, err := exec.Command("go", "build", "-o", build.bin, ".").CombinedOutput()
		if err != nil {
			build.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.bin
}

// proc is a lockd subprocess.
type proc struct {
	cmd    *exec.Cmd
	url    string
	stderr *lockedBuffer
}

// startBinary starts the lockd binary with args and waits for the line
// naming its address. The test's cleanup stops it with SIGTERM.
func startBinary(t *testing.T, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(lockdBinary(t), args...), stderr: &lockedBuffer{}}
	p.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	p.cmd.Stderr = p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- p.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("lockd exited: %v\n%s", err, p.stderr.String())
			}
		case <-time.After(30 * time.Second):
			_ = p.cmd.Process.Kill()
			t.Error("lockd did not stop within 30 s of SIGTERM")
		}
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	select {
	case line := <-lines:
		rest, ok := strings.CutPrefix(line, "lockd: serving lockstep.v1 on ")
		if !ok {
			t.Fatalf("unexpected first line %q", line)
		}
		p.url, _, _ = strings.Cut(rest, " ")
	case <-time.After(60 * time.Second):
		t.Fatalf("lockd did not start within 60 s:\n%s", p.stderr.String())
	}
	return p
}

// status reads a field of /proc/<pid>/status in kB (VmRSS, VmHWM).
func (p *proc) status(field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, p.cmd.Process.Pid)
}

// waitLog waits until lockd's stderr has a line containing s.
func (p *proc) waitLog(t *testing.T, s string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(p.stderr.String(), s); {
		if time.Now().After(deadline) {
			t.Fatalf("lockd did not log %q within 10 s:\n%s", s, p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// principalsFile writes a principals file giving principal billing the
// tokens, and prefix "billing/".
func principalsFile(t *testing.T, path string, tokens ...string) {
	t.Helper()
	digests := make([]string, len(tokens))
	for i, tok := range tokens {
		digests[i] = strconv.Quote(lockd.TokenDigest(tok))
	}
	doc := `{"principals": [{"name": "billing", "token_sha256": [` + strings.Join(digests, ", ") + `], "prefixes": ["billing/"]}]}`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// bearer adds Authorization: Bearer <token> to every call of a client.
type bearer string

func (b bearer) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		req.Header().Set("Authorization", "Bearer "+string(b))
		return next(ctx, req)
	}
}

func (b bearer) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, spec connect.Spec) connect.StreamingClientConn {
		conn := next(ctx, spec)
		conn.RequestHeader().Set("Authorization", "Bearer "+string(b))
		return conn
	}
}

func (b bearer) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}
