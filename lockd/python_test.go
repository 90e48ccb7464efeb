package lockd_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd"
)

// TestPythonClient runs the Python client's tests (python/test_lockd.py,
// pytest) against a lockd on a loopback port, with two principals. It needs
// the venv of lockd/scripts/venv: LOCKD_PYTHON names its python
// (lockd/scripts/pytest sets it). Without it the test skips, saying so.
func TestPythonClient(t *testing.T) {
	python := os.Getenv("LOCKD_PYTHON")
	if python == "" {
		t.Skip("LOCKD_PYTHON not set: the Python client's tests run with lockd/scripts/pytest (it makes the venv)")
	}
	doc := fmt.Sprintf(`{"principals": [
		{"name": "py", "token_sha256": [%q], "prefixes": ["py/", "py-"]},
		{"name": "other", "token_sha256": [%q], "prefixes": ["other/"]}
	]}`, lockd.TokenDigest("tok-py"), lockd.TokenDigest("tok-other"))
	principals, err := lockd.ParsePrincipals([]byte(doc))
	require.NoError(t, err)
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: principals},
		deadlock: &lockstep.DeadlockDetection{After: 100 * time.Millisecond, Every: 100 * time.Millisecond}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_lockd.py")
	cmd.Dir = "python"
	cmd.Env = append(os.Environ(), "LOCKD_ADDR="+strings.TrimPrefix(f.url, "http://"), "LOCKD_TOKEN_A=tok-py", "LOCKD_TOKEN_B=tok-other",
		"PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	t.Logf("pytest:\n%s", out)
	require.NoError(t, err, "the Python client's tests failed")
}
