package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lockctl view against a real lockd: the binary built from lockd/cmd/lockd,
// a subprocess on a loopback port, on its embedded model, with --ui and a
// principals file. Locks are taken through lockd's Connect JSON protocol,
// as curl would.

var lockdBuild struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if lockdBuild.dir != "" {
		os.RemoveAll(lockdBuild.dir)
	}
	os.Exit(code)
}

// lockdBinary builds lockd once per test binary.
func lockdBinary(t *testing.T) string {
	t.Helper()
	lockdBuild.once.Do(func() {
		if lockdBuild.dir, lockdBuild.err = os.MkdirTemp("", "lockctl-lockd-"); lockdBuild.err != nil {
			return
		}
		lockdBuild.bin = filepath.Join(lockdBuild.dir, "lockd")
		cmd := exec.Command("go", "build", "-o", lockdBuild.bin, ".")
		cmd.Dir = filepath.Join("..", "..", "lockd", "cmd", "lockd")
		if out, err := cmd.CombinedOutput(); err != nil {
			lockdBuild.err = fmt.Errorf("go build lockd: %v\n%s", err, out)
		}
	})
	if lockdBuild.err != nil {
		t.Fatal(lockdBuild.err)
	}
	return lockdBuild.bin
}

// startLockd starts lockd with args on a loopback port and returns its URL;
// the test's cleanup stops it with SIGTERM.
func startLockd(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(lockdBinary(t), append([]string{"--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Error("lockd did not stop within 30 s of SIGTERM")
		}
	})
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case first <- sc.Text():
			default:
			}
		}
	}()
	select {
	case line := <-first:
		rest, ok := strings.CutPrefix(line, "lockd: serving lockstep.v1 on ")
		require.True(t, ok, "unexpected first line %q", line)
		u, _, _ := strings.Cut(rest, " ")
		return u
	case <-time.After(60 * time.Second):
		t.Fatal("lockd did not start within 60 s")
		return ""
	}
}

// call makes one Connect JSON call to lockd and decodes its answer into out.
func call(t *testing.T, base, token, method, body string, out any) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/lockstep.v1.LockService/"+method, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	if out != nil && res.StatusCode == http.StatusOK {
		require.NoError(t, json.Unmarshal(b, out), "%s", b)
	}
	return res.StatusCode, string(b)
}

func openSession(t *testing.T, base, token string) string {
	t.Helper()
	var s struct {
		SessionID string `json:"sessionId"`
	}
	code, body := call(t, base, token, "OpenSession", `{"ttl": "60s"}`, &s)
	require.Equal(t, http.StatusOK, code, body)
	return s.SessionID
}

// viewLockd is a lockd with --ui and three principals: ops (the web view,
// every session, ids under a/), app (locks under a/, no view) and bee
// (locks under b/). app holds a/orders/7 (l-1) and inv-42 (l-2, a flat id,
// with a fencing token), and a second session of app's waits for
// a/orders/7 in S with the comment "report run"; bee holds b/secret.
type viewLockd struct {
	url, holder, waiter, bee string
	token                    int64
}

func newViewLockd(t *testing.T) viewLockd {
	t.Helper()
	digest := func(s string) string { d := sha256.Sum256([]byte(s)); return hex.EncodeToString(d[:]) }
	doc := fmt.Sprintf(`{"principals": [
		{"name": "ops", "token_sha256": [%q], "prefixes": ["a/", "inv-"], "web_view": true, "list_sessions": true},
		{"name": "app", "token_sha256": [%q], "prefixes": ["a/", "inv-"]},
		{"name": "bee", "token_sha256": [%q], "prefixes": ["b/"]}]}`, digest("tok-ops"), digest("tok-app"), digest("tok-bee"))
	file := filepath.Join(t.TempDir(), "principals.json")
	require.NoError(t, os.WriteFile(file, []byte(doc), 0o600))
	v := viewLockd{url: startLockd(t, "--ui", "--principals", file, "--process-id", "lockd-view")}
	v.holder, v.waiter, v.bee = openSession(t, v.url, "tok-app"), openSession(t, v.url, "tok-app"), openSession(t, v.url, "tok-bee")
	var held struct {
		Lock struct {
			Token string `json:"token"`
		} `json:"lock"`
	}
	code, body := call(t, v.url, "tok-app", "Lock", `{"sessionId": "`+v.holder+`", "items": [{"id": "a/orders/7"}]}`, nil)
	require.Equal(t, http.StatusOK, code, body)
	code, body = call(t, v.url, "tok-app", "Lock", `{"sessionId": "`+v.holder+`", "items": [{"id": "inv-42"}]}`, &held)
	require.Equal(t, http.StatusOK, code, body)
	_, err := fmt.Sscan(held.Lock.Token, &v.token)
	require.NoError(t, err)
	code, body = call(t, v.url, "tok-bee", "Lock", `{"sessionId": "`+v.bee+`", "items": [{"id": "b/secret"}]}`, nil)
	require.Equal(t, http.StatusOK, code, body)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = call(t, v.url, "tok-app", "Lock", `{"sessionId": "`+v.waiter+`", "items": [{"id": "a/orders/7", "access": "ACCESS_SHARED"}], "comment": "report run"}`, nil)
	}()
	t.Cleanup(func() {
		_, _ = call(t, v.url, "tok-app", "UnlockAll", `{"sessionId": "`+v.holder+`"}`, nil)
		<-done
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		code, out, _ := runLockctl(t, map[string]string{"LOCKSTEP_LOCKD_TOKEN": "tok-ops"}, "view", "hot", "--lockd", v.url)
		if code == exitOK && strings.Contains(out, "report run") {
			return v
		}
		require.False(t, time.Now().After(deadline), "the waiter never showed in view hot:\n%s", out)
	}
}

func runLockctl(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errOut)
	a.getenv = func(k string) string { return env[k] }
	code := a.run(context.Background(), args)
	return code, out.String(), errOut.String()
}

func TestView_PrintsEachPanelOfARealLockd(t *testing.T) {
	v := newViewLockd(t)
	ops := map[string]string{"LOCKSTEP_LOCKD_TOKEN": "tok-ops", "LOCKSTEP_LOCKD_URL": v.url}

	code, out, errOut := runLockctl(t, ops, "view", "hot")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "lockd "+v.url+" (principal ops, at ")
	assert.Regexp(t, `a/orders/7: held; 1 acquired, \d+ contended in 5 min`, out)
	assert.Regexp(t, fmt.Sprintf(`lockd-view\.\d+\s+lockd-view\s+X\s+\S+\s+-\s+%s\s+l-1\n`, v.holder), out, "the holder of a/orders/7 with its session")
	assert.Regexp(t, fmt.Sprintf(`inv-42: held(?s:.*)lockd-view\.\d+\s+lockd-view\s+X\s+\S+\s+%d\s+%s\s+l-2\n`, v.token, v.holder), out, "the holder of inv-42 with its token")
	assert.Regexp(t, `1\s+session `+v.waiter+` \(app\)\s+shared\s+\S+\s+"report run"`, out, "the waiter in line with its comment")
	assert.NotContains(t, out, "b/secret", "ops's prefix is a/")

	code, out, errOut = runLockctl(t, ops, "view", "hot", "--output", "json")
	require.Equal(t, exitOK, code, errOut)
	var hot struct {
		Lockds []struct {
			URL       string `json:"url"`
			Principal string `json:"principal"`
			Hot       struct {
				IDs []struct {
					ID      string `json:"id"`
					Holders []struct {
						Token   int64  `json:"token"`
						Session string `json:"session"`
					} `json:"holders"`
					Waiters []struct{ Session, Access, Comment string } `json:"waiters"`
				} `json:"ids"`
			} `json:"hot"`
		} `json:"lockds"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &hot), out)
	require.Len(t, hot.Lockds, 1)
	require.Equal(t, v.url, hot.Lockds[0].URL)
	require.Equal(t, "ops", hot.Lockds[0].Principal)
	found := false
	for _, id := range hot.Lockds[0].Hot.IDs {
		require.NotEqual(t, "b/secret", id.ID)
		if id.ID == "inv-42" {
			require.Equal(t, v.token, id.Holders[0].Token)
		}
		if id.ID == "a/orders/7" {
			found = true
			require.Equal(t, v.holder, id.Holders[0].Session)
			require.Equal(t, []struct{ Session, Access, Comment string }{{v.waiter, "shared", "report run"}}, id.Waiters)
		}
	}
	require.True(t, found, out)
	require.NotContains(t, out, `"fleet"`, "one panel's JSON holds that panel")

	code, out, errOut = runLockctl(t, ops, "view", "fleet")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "phase: new (processes may take locks in: combined, new)")
	assert.Contains(t, out, "move to combined: blocked: migration: phase move new -> combined refused: 1 live process(es) use a mode phase combined forbids")
	assert.Regexp(t, `lockd-view \(this lockd\)\s+\S+\s+\S+\s+new\s`, out)

	code, out, errOut = runLockctl(t, ops, "view", "sessions")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "3 session(s): every live session")
	assert.Regexp(t, v.holder+`\s+app\s+-\s+60s\s+i-\S+\s+l-1 a/orders/7:exclusive; l-2 inv-42:exclusive token `+fmt.Sprint(v.token), out)
	assert.Regexp(t, v.bee+`\s+bee\s+-\s+60s\s+i-\S+\s+1 outside the prefixes`, out)
	assert.NotContains(t, out, "b/secret")

	code, out, errOut = runLockctl(t, ops, "view", "deadlocks")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "0 deadlock(s) broken in the last five minutes")
	deadlock(t, v.url)
	code, out, errOut = runLockctl(t, ops, "view", "deadlocks")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "1 deadlock(s) broken in the last five minutes")
	assert.Regexp(t, `a cycle of 2 waits; the first was failed to break it\n\s+1\. lockd-view waits for a/x \(X\), held in X by lockd-view\.\d+: "job B"\n\s+2\. lockd-view waits for a/y \(X\), held in X by lockd-view\.\d+: "job A"`, out)

	code, out, errOut = runLockctl(t, ops, "view", "charts", "--output", "json")
	require.Equal(t, exitOK, code, errOut)
	var charts struct {
		Lockds []struct {
			Charts []struct {
				Title string `json:"title"`
			} `json:"charts"`
		} `json:"lockds"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &charts), out)
	require.Len(t, charts.Lockds[0].Charts, 4)
	require.Equal(t, "acquisitions/s", charts.Lockds[0].Charts[0].Title)
	code, out, errOut = runLockctl(t, ops, "view", "charts")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `wait p99\s+`, out)
}

// Each refusal: a bad URL, no lockd named and an unknown panel are usage
// errors (2); no token, an unknown token and a principal without the grant
// are refused (4) in lockd's words with what to give; a lockd without --ui
// says to start it with --ui (1); one that cannot be reached exits 3, after
// the others are printed.
func TestView_Refusals(t *testing.T) {
	v := newViewLockd(t)
	plain := startLockd(t)
	for _, c := range []struct {
		env  map[string]string
		args []string
		code int
		want string
	}{
		{nil, []string{"view", "hot", "--lockd", "127.0.0.1:7420"}, exitUsage, `view hot: --lockd "127.0.0.1:7420": want http://host:port or https://host:port`},
		{nil, []string{"view", "hot"}, exitUsage, "view hot: no lockd named: give --lockd"},
		{nil, []string{"view", "hottest"}, exitUsage, `unknown command "hottest" for "lockctl view"`},
		{nil, []string{"view"}, exitUsage, "view needs a subcommand: view charts or view deadlocks or view fleet or view hot or view sessions"},
		{nil, []string{"view", "hot", "--lockd", v.url}, exitRefused, `lockd at ` + v.url + ` refused its web view (unauthenticated): no credential: send the bearer token (or the client certificate) of a principal granted "web_view"; give the token of a principal granted "web_view" (LOCKSTEP_LOCKD_TOKEN or --lockd-token-file)`},
		{map[string]string{"LOCKSTEP_LOCKD_TOKEN": "nope"}, []string{"view", "fleet", "--lockd", v.url}, exitRefused, "refused its web view (permission_denied): bearer token not recognised"},
		{map[string]string{"LOCKSTEP_LOCKD_TOKEN": "tok-app"}, []string{"view", "sessions", "--lockd", v.url}, exitRefused, `refused its web view (permission_denied): principal "app" is not granted the web view: add "web_view": true to it in the principals file`},
		{nil, []string{"view", "deadlocks", "--lockd", plain}, exitFailed, "lockd at " + plain + " serves no web view (HTTP 404 for /ui/api/deadlocks): start it with --ui"},
		{map[string]string{"LOCKSTEP_LOCKD_TOKEN": "tok-ops"}, []string{"view", "hot", "--lockd", "http://127.0.0.1:1," + v.url}, exitUnreachable, "cannot reach lockd at http://127.0.0.1:1"},
	} {
		code, out, errOut := runLockctl(t, c.env, c.args...)
		assert.Equal(t, c.code, code, "%v %v: %s", c.env, c.args, errOut)
		assert.Contains(t, errOut, c.want, "%v %v", c.env, c.args)
		if c.code == exitUnreachable {
			assert.Contains(t, out, "a/orders/7: held", "the reachable lockd is printed")
		}
	}
}

// deadlock makes two sessions of app wait for each other's id (a/x, a/y)
// until lockd's deadlock detection (after 1s of waiting) fails the later
// wait; the other is granted once the victim's session lets go.
func deadlock(t *testing.T, base string) {
	t.Helper()
	s1, s2 := openSession(t, base, "tok-app"), openSession(t, base, "tok-app")
	for _, c := range [][2]string{{s1, "a/x"}, {s2, "a/y"}} {
		code, body := call(t, base, "tok-app", "Lock", `{"sessionId": "`+c[0]+`", "items": [{"id": "`+c[1]+`"}]}`, nil)
		require.Equal(t, http.StatusOK, code, body)
	}
	first := make(chan int, 1)
	go func() {
		code, _ := call(t, base, "tok-app", "Lock", `{"sessionId": "`+s1+`", "items": [{"id": "a/y"}], "comment": "job A"}`, nil)
		first <- code
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, out, _ := runLockctl(t, map[string]string{"LOCKSTEP_LOCKD_TOKEN": "tok-ops"}, "view", "hot", "--lockd", base)
		if strings.Contains(out, `"job A"`) {
			break // s1 waits: s2's wait, later, is the victim
		}
		require.False(t, time.Now().After(deadline), "s1's wait never showed:\n%s", out)
	}
	code, body := call(t, base, "tok-app", "Lock", `{"sessionId": "`+s2+`", "items": [{"id": "a/x"}], "comment": "job B"}`, nil)
	require.Equal(t, http.StatusConflict, code, body)
	require.Contains(t, body, "REASON_DEADLOCK")
	code, body = call(t, base, "tok-app", "UnlockAll", `{"sessionId": "`+s2+`"}`, nil)
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, http.StatusOK, <-first)
}
