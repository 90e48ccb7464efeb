package lockd_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCurl_READMESession runs the curl session of docs/lockd.md, as written,
// against a lockd on a loopback port: Connect's HTTP/JSON face answers plain
// curl. It skips, saying so, where curl or bash is missing.
func TestCurl_READMESession(t *testing.T) {
	for _, tool := range []string{"curl", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: the curl session of docs/lockd.md needs it", tool)
		}
	}
	readme, err := os.ReadFile("../docs/lockd.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(readme), "lockd curl session; lockd/curl_test.go runs it")
	require.True(t, ok, "docs/lockd.md lost the curl session's marker")
	_, rest, ok = strings.Cut(rest, "```sh\n")
	require.True(t, ok)
	script, _, ok := strings.Cut(rest, "```")
	require.True(t, ok)
	require.Contains(t, script, "http://127.0.0.1:7420")

	f := newFixture(t, fixtureOptions{})
	script = strings.ReplaceAll(script, "http://127.0.0.1:7420", f.url)
	out, err := exec.Command("bash", "-euo", "pipefail", "-c", script).CombinedOutput()
	t.Logf("%s", out)
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 8, "%s", out)
	require.Contains(t, lines[0], `"lockId":"l-1"`)
	require.Contains(t, lines[0], `"token":"`)
	require.Contains(t, lines[1], `"code":"failed_precondition"`)
	require.Contains(t, lines[1], `REASON_LOCKED`)
	require.Contains(t, lines[2], `"lockId":"l-2"`)
	require.Equal(t, "{}", lines[3])
	require.Contains(t, lines[4], `"lockId":"l-3"`)
	require.Contains(t, lines[4], `"exports/*"`)
	require.Contains(t, lines[5], `"identity":"i-`)
	require.Regexp(t, `"lockId":"l-2".*"lockId":"l-3"`, lines[5], "T shares S's identity and its locks")
	require.Regexp(t, `^\{"lockIds":\["l-2",\s*"l-3"\]\}$`, lines[6], "protojson varies its spaces on purpose")
	require.Equal(t, "{}", lines[7])
}
