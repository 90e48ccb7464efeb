package lockd_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd"
)

// TestPythonClient runs the Python client's tests (python/tests, pytest)
// against a lockd on a loopback port, with two principals and lock cells of
// a 6s TTL (lockd --lock-ttl 6s: each lock's valid_for is about 2s, shorter
// than the sessions' TTLs). A POST to LOCKD_RESTART_URL restarts that lockd
// on the same address (fixture.restart), as a crash and a restart would.
// That lockd has no peer key; LOCKD_CLUSTER lists three more, of one cluster
// (one store, a shared peer key, the same principals and lock TTL), for the
// fail-over tests, which cut, hang or slow one of them with a POST to
// LOCKD_FAULT_URL/<i>/<fault> (pyClusterControl). LOCKD_PYTHON
// names the python of a venv the package lockd/python was pip-installed into
// (lockd/scripts/pytest makes a fresh one); the test checks that the
// package it imports is that installed copy, not the source tree. Without
// LOCKD_PYTHON the test skips, saying so. LOCKD_PYTEST_ARGS, when set,
// replaces pytest's "tests" with its space-separated words: a selection,
// such as "--keep-duplicates tests/test_failover.py::a tests/test_failover.py::a"
// to run one test twice against the same lockds.
func TestPythonClient(t *testing.T) {
	python := os.Getenv("LOCKD_PYTHON")
	if python == "" {
		t.Skip("LOCKD_PYTHON not set: the Python client's tests run with lockd/scripts/pytest (it installs the package into a fresh venv)")
	}
	doc := fmt.Sprintf(`{"principals": [
		{"name": "py", "token_sha256": [%q], "prefixes": ["py/", "py-"]},
		{"name": "other", "token_sha256": [%q], "prefixes": ["other/"]}
	]}`, lockd.TokenDigest("tok-py"), lockd.TokenDigest("tok-other"))
	principals, err := lockd.ParsePrincipals([]byte(doc))
	require.NoError(t, err)
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: principals}, lockTTL: 6 * time.Second,
		deadlock: &lockstep.DeadlockDetection{After: 100 * time.Millisecond, Every: 100 * time.Millisecond}})
	cluster := newPyCluster(t, 3, lockd.Options{Principals: principals}, 6*time.Second)
	var addrs []string
	for _, l := range cluster {
		addrs = append(addrs, strings.TrimPrefix(l.f.url, "http://"))
	}
	mux := http.NewServeMux()
	mux.Handle("/lockd/", pyClusterControl(cluster))
	mux.HandleFunc("/restart", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST /restart", http.StatusNotFound)
			return
		}
		if err := f.restart(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	control := httptest.NewServer(mux)
	defer control.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	requireInstalled(t, python)
	args := []string{"-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "faulthandler_timeout=30", "--durations=5"}
	if sel := os.Getenv("LOCKD_PYTEST_ARGS"); sel != "" {
		args = append(args, strings.Fields(sel)...)
	} else {
		args = append(args, "tests")
	}
	cmd := exec.CommandContext(ctx, python, args...)
	cmd.Dir = "python"
	cmd.Env = append(os.Environ(), "LOCKD_ADDR="+strings.TrimPrefix(f.url, "http://"), "LOCKD_TOKEN_A=tok-py", "LOCKD_TOKEN_B=tok-other",
		"LOCKD_RESTART_URL="+control.URL+"/restart", "LOCKD_CLUSTER="+strings.Join(addrs, ","), "LOCKD_FAULT_URL="+control.URL+"/lockd",
		"PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	t.Logf("pytest:\n%s", out)
	require.NoError(t, err, "the Python client's tests failed")
}

// requireInstalled fails unless python imports lockstep.lockd from its own
// site-packages: the tests must check the package as pip installed it.
func requireInstalled(t *testing.T, python string) {
	t.Helper()
	cmd := exec.Command(python, "-c", "import lockstep.lockd; print(lockstep.lockd.__file__)")
	cmd.Dir = os.TempDir() // not python/, whose src/ must not be on the path
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s cannot import lockstep.lockd: pip install ./lockd/python into its venv (lockd/scripts/pytest does): %s", python, out)
	require.Contains(t, string(out), "site-packages", "lockstep.lockd is not the installed package: %s", out)
}

// TestPythonClient_READMESession runs the README's Python session, exactly
// as written, with the installed package of LOCKD_PYTHON (as
// TestPythonClient), against a lockd given as the README says: LOCKD_ADDR,
// and LOCKD_TOKEN for a lockd with principals, unset in open mode.
func TestPythonClient_READMESession(t *testing.T) {
	python := os.Getenv("LOCKD_PYTHON")
	if python == "" {
		t.Skip("LOCKD_PYTHON not set: the Python client's tests run with lockd/scripts/pytest (it installs the package into a fresh venv)")
	}
	requireInstalled(t, python)
	script := readmeBlock(t, "<!-- lockd python session", "python")
	doc := fmt.Sprintf(`{"principals": [{"name": "billing", "token_sha256": [%q], "prefixes": ["invoice-"]}]}`, lockd.TokenDigest("tok-billing"))
	principals, err := lockd.ParsePrincipals([]byte(doc))
	require.NoError(t, err)
	for _, c := range []struct {
		name  string
		opts  lockd.Options
		token string
	}{
		{"open mode", lockd.Options{}, ""},
		{"principals", lockd.Options{Principals: principals}, "tok-billing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{opts: c.opts})
			cmd := exec.Command(python, "-c", script)
			cmd.Dir = t.TempDir() // the installed package, not the source tree
			cmd.Env = append(os.Environ(), "LOCKD_ADDR="+strings.TrimPrefix(f.url, "http://"), "PYTHONDONTWRITEBYTECODE=1")
			if c.token != "" {
				cmd.Env = append(cmd.Env, "LOCKD_TOKEN="+c.token)
			}
			out, err := cmd.CombinedOutput()
			t.Logf("%s", out)
			require.NoError(t, err, "%s", out)
			require.Regexp(t, `^holding l-1 fencing token [1-9][0-9]*\n$`, string(out))
		})
	}
}
