package lockd_test

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCurl_READMESession runs docs/lockd.md's curl session, exactly as written,
// against a lockd on a loopback port whose address it is given as the
// page says (LOCKD_ADDR): Connect's HTTP/JSON face answers plain curl.
// It skips, saying so, where curl or bash is missing.
func TestCurl_READMESession(t *testing.T) {
	for _, tool := range []string{"curl", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: the curl session of docs/lockd.md needs it", tool)
		}
	}
	script := readmeBlock(t, "lockd curl session", "sh")
	f := newFixture(t, fixtureOptions{})
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Env = append(os.Environ(), "LOCKD_ADDR="+strings.TrimPrefix(f.url, "http://"))
	out, err := cmd.CombinedOutput()
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

// TestCurl_READMESessionSaysWhenNoLockdAnswers runs docs/lockd.md's curl
// session against an address where nothing listens: curl says it could not
// connect, rather than printing nothing.
func TestCurl_READMESessionSaysWhenNoLockdAnswers(t *testing.T) {
	for _, tool := range []string{"curl", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: docs/lockd.md's curl session needs it", tool)
		}
	}
	script := readmeBlock(t, "lockd curl session", "sh")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	cmd := exec.Command("bash", "-uo", "pipefail", "-c", script)
	cmd.Env = append(os.Environ(), "LOCKD_ADDR="+addr)
	out, _ := cmd.CombinedOutput()
	require.Contains(t, string(out), "Failed to connect", "%s", out)
}

// readmeBlock returns the code block of lang that follows marker in the
// repository's docs/lockd.md, where lockd's page keeps its sessions.
func readmeBlock(t *testing.T, marker, lang string) string {
	t.Helper()
	page, err := os.ReadFile("../docs/lockd.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(page), marker)
	require.True(t, ok, "docs/lockd.md lost the marker %q", marker)
	_, rest, ok = strings.Cut(rest, "```"+lang+"\n")
	require.True(t, ok, "docs/lockd.md has no %s block after %q", lang, marker)
	block, _, ok := strings.Cut(rest, "```")
	require.True(t, ok)
	return block
}
