package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeLockd answers ListSessions as lockd does on Connect's JSON protocol
// (the shape lockd's TestListSessions_OnlyForAGrantedPrincipal pins), for
// the token "tok-ops"; 401 without a token, 403 for another.
func fakeLockd(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "/lockstep.v1.LockService/ListSessions", r.URL.Path)
		assert.Equal(t, http.MethodPost, r.Method)
		assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
		body, _ := io.ReadAll(r.Body)
		assert.JSONEq(t, "{}", string(body))
		w.Header().Set("Content-Type", "application/json")
		switch r.Header.Get("Authorization") {
		case "Bearer tok-ops":
			_, _ = io.WriteString(w, `{"sessions":[{"sessionId":"s-1", "name":"export", "principal":"billing", "ttl":"10s",
				"identity":"i-ab", "identitySessions":2,
				"locks":[{"lockId":"l-1", "items":[{"id":"billing/7", "access":"ACCESS_SHARED"}, {"id":"billing/8"}]},
				         {"lockId":"l-2", "items":[{"id":"billing-9"}], "token":"42"}]},
				{"sessionId":"s-2", "principal":"reports", "ttl":"1.500s", "identity":"i-cd", "identitySessions":1}]}`)
		case "":
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"code":"unauthenticated","message":"no credential"}`)
		default:
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"code":"permission_denied","message":"principal \"reports\" may not list the server's sessions"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func runSessions(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errOut)
	a.getenv = func(k string) string { return env[k] }
	code := a.run(context.Background(), append([]string{"sessions"}, args...))
	return code, out.String(), errOut.String()
}

func TestSessions_ListsEachLockdsSessionsAndLocks(t *testing.T) {
	srv := fakeLockd(t)
	code, out, errOut := runSessions(t, map[string]string{"LOCKSTEP_LOCKD_TOKEN": "tok-ops"}, "--lockd", srv.URL)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "lockd "+srv.URL+": 2 session(s)")
	assert.Regexp(t, `s-1\s+billing\s+export\s+10s\s+i-ab \(shared by 2\)\s+l-1 billing/7:S,billing/8:X; l-2 billing-9:X token 42`, out)
	assert.Regexp(t, `s-2\s+reports\s+-\s+1.5s\s+i-cd\s+-`, out)

	tok := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tok, []byte("tok-ops\n"), 0o600))
	code, out, errOut = runSessions(t, map[string]string{"LOCKSTEP_LOCKD_URL": srv.URL, "LOCKSTEP_LOCKD_TOKEN": "wrong"},
		"--lockd-token-file", tok, "--output", "json")
	require.Equal(t, exitOK, code, errOut)
	var r sessionsJSON
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.Len(t, r.Lockds, 1)
	require.Len(t, r.Lockds[0].Sessions, 2)
	s1 := r.Lockds[0].Sessions[0]
	assert.Equal(t, sessionJSON{Session: "s-1", Principal: "billing", Name: "export", TTLSeconds: 10, Identity: "i-ab", IdentitySessions: 2, Locks: []heldJSON{
		{Lock: "l-1", Items: []string{"billing/7:S", "billing/8:X"}},
		{Lock: "l-2", Items: []string{"billing-9:X"}, Token: 42},
	}}, s1, "the token file wins over LOCKSTEP_LOCKD_TOKEN")
	assert.Equal(t, 1.5, r.Lockds[0].Sessions[1].TTLSeconds)
	assert.Equal(t, []heldJSON{}, r.Lockds[0].Sessions[1].Locks, "[] rather than null")
}

// Each refusal: no lockd named, a bad URL, an empty token file and a bad
// CA are usage errors (2); a lockd that refuses the token exits 4, one that
// cannot be reached 3, after the others are listed.
func TestSessions_Refusals(t *testing.T) {
	srv := fakeLockd(t)
	empty := filepath.Join(t.TempDir(), "empty")
	require.NoError(t, os.WriteFile(empty, []byte("\n"), 0o600))
	for _, c := range []struct {
		env  map[string]string
		args []string
		code int
		want string
	}{
		{nil, nil, exitUsage, "no lockd named: give --lockd"},
		{nil, []string{"--lockd", "127.0.0.1:7420"}, exitUsage, `--lockd "127.0.0.1:7420": want http://host:port`},
		{nil, []string{"--lockd", srv.URL, "--lockd-token-file", empty}, exitUsage, "its first line is empty"},
		{nil, []string{"--lockd", srv.URL, "--lockd-ca", empty}, exitUsage, "no PEM certificate in it"},
		{nil, []string{"--lockd", srv.URL, "extra"}, exitUsage, "unexpected arguments"},
		{nil, []string{"--lockd", srv.URL}, exitRefused, "refused ListSessions (unauthenticated): no credential; give the token of a principal granted \"list_sessions\""},
		{map[string]string{"LOCKSTEP_LOCKD_TOKEN": "tok-reports"}, []string{"--lockd", srv.URL}, exitRefused, "(permission_denied)"},
		{map[string]string{"LOCKSTEP_LOCKD_TOKEN": "tok-ops"}, []string{"--lockd", "http://127.0.0.1:1," + srv.URL}, exitUnreachable, "cannot reach lockd at http://127.0.0.1:1"},
	} {
		code, out, errOut := runSessions(t, c.env, c.args...)
		assert.Equal(t, c.code, code, "%v %v: %s", c.env, c.args, errOut)
		assert.Contains(t, errOut, c.want, "%v %v", c.env, c.args)
		if c.code == exitUnreachable {
			assert.Contains(t, out, "lockd "+srv.URL+": 2 session(s)", "the reachable lockd is listed")
		}
	}
}
