package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration/census"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/schema"
)

// forged is a name written to forge a row of lockctl sessions' table and
// take over the terminal: a newline and a fake row, a carriage return, ESC
// sequences that clear the screen and set the window title, a bidi
// override, DEL and a C1 CSI.
const forged = "ok\n  s-9  ops  admin  10s  -  -\r\x1b[2J\x1b]0;pwned\x07\u202eevil\x7f\u009b"

// notUTF8 adds bytes that are not UTF-8, which a store cell can hold.
const notUTF8 = forged + "\xff\xfe"

// requireTerminalSafe fails unless out is UTF-8 whose every rune is a
// newline or printable (unicode.IsPrint; no tab, CR, ESC, DEL, C1 control
// or bidi override).
func requireTerminalSafe(t *testing.T, out string) {
	t.Helper()
	require.True(t, utf8.ValidString(out), "output is not UTF-8:\n%q", out)
	for i, r := range out {
		if r != '\n' && !unicode.IsPrint(r) {
			t.Fatalf("output holds %U at byte %d:\n%q", r, i, out)
		}
	}
}

func TestField_QuotesWhatATerminalWouldActOn(t *testing.T) {
	for in, want := range map[string]string{
		"billing/7":      "billing/7",
		"i-ab.1:X":       "i-ab.1:X",
		"naïve-日本":       "naïve-日本",
		"a b":            `"a b"`,
		`say "hi"`:       `"say \"hi\""`,
		"-":              `"-"`,
		"a\nb":           `"a\nb"`,
		"\x1b[2J":        `"\x1b[2J"`,
		"a\rb\tc":        `"a\rb\tc"`,
		"\u202eevil":     `"\u202eevil"`,
		"\xff":           `"\xff"`,
		"del\x7f\u009b":  `"del\x7f\u009b"`,
		"line\u2028next": `"line\u2028next"`,
	} {
		assert.Equal(t, want, field(in), "field(%q)", in)
	}
}

func TestText_EscapesNonPrintablesInPlace(t *testing.T) {
	for in, want := range map[string]string{
		"lockd refused: no credential": "lockd refused: no credential",
		"held by \x1b[2Jops\r":         `held by \x1b[2Jops\r`,
		"bad \xff byte":                `bad \xff byte`,
		"\u202eevil\x7f":               `\u202eevil\x7f`,
		"tab\there":                    `tab\there`,
	} {
		assert.Equal(t, want, text(in), "text(%q)", in)
	}
}

// escapeJSON leaves a document that decodes to the same values.
func TestEscapeJSON_DecodesToTheSameValues(t *testing.T) {
	in := map[string]string{"name": forged, "astral": "\U0001D11E\U000E0001", "plain": "export"}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	assert.Contains(t, string(b), "\x7f", "encoding/json writes DEL raw")
	out := escapeJSON(b)
	requireTerminalSafe(t, string(out))
	var back map[string]string
	require.NoError(t, json.Unmarshal(out, &back))
	assert.Equal(t, in, back)
}

// A session name, lock id, item id, principal and identity with a newline,
// ESC sequences and a carriage return print escaped, one row per session;
// --output json carries them exactly, escaped.
func TestSessions_HostileNamesPrintOneRowPerSession(t *testing.T) {
	body, err := json.Marshal(map[string]any{"sessions": []any{
		map[string]any{"sessionId": "s-1", "name": forged, "principal": "billing\x1b[31m", "ttl": "10s",
			"identity": "i-ab\n", "identitySessions": 1,
			"locks": []any{map[string]any{"lockId": "l-1\r\x1b[2K", "items": []any{map[string]any{"id": "inv\n42"}}}}},
		map[string]any{"sessionId": "s-2", "name": "export", "principal": "reports", "ttl": "10s"},
		map[string]any{"sessionId": "s-3", "name": "-", "principal": "reports", "ttl": "10s"},
	}})
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)

	code, out, errOut := runSessions(t, nil, "--lockd", srv.URL)
	require.Equal(t, exitOK, code, errOut)
	requireTerminalSafe(t, out)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 5, "a title, a header and one row per session:\n%s", out)
	assert.True(t, strings.HasPrefix(lines[2], "  s-1 "), lines[2])
	assert.Contains(t, lines[2], `"billing\x1b[31m"`)
	assert.Contains(t, lines[2], `"ok\n  s-9  ops  admin  10s  -  -\r\x1b[2J\x1b]0;pwned\a\u202eevil\x7f\u009b"`)
	assert.Contains(t, lines[2], `"i-ab\n"`)
	assert.Contains(t, lines[2], `"l-1\r\x1b[2K" "inv\n42:X"`)
	assert.Regexp(t, `^  s-2\s+reports\s+export\s`, lines[3])
	assert.Regexp(t, `^  s-3\s+reports\s+"-"\s`, lines[4], "a session named - is told from one without a name")

	code, out, errOut = runSessions(t, nil, "--lockd", srv.URL, "--output", "json")
	require.Equal(t, exitOK, code, errOut)
	requireTerminalSafe(t, out)
	var r sessionsJSON
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	s := r.Lockds[0].Sessions[0]
	assert.Equal(t, forged, s.Name)
	assert.Equal(t, "l-1\r\x1b[2K", s.Locks[0].Lock)
	assert.Equal(t, []string{"inv\n42:X"}, s.Locks[0].Items)
}

// A lockd's refusal message reaches stderr escaped.
func TestSessions_HostileRefusalIsEscaped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		b, _ := json.Marshal(map[string]string{"code": "permission_denied", "message": forged})
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	code, out, errOut := runSessions(t, nil, "--lockd", srv.URL)
	assert.Equal(t, exitRefused, code)
	assert.Empty(t, out, "a refusal prints nothing on stdout")
	requireTerminalSafe(t, errOut)
	assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	assert.Contains(t, errOut, `\x1b[2J`)

	code, out, _ = runSessions(t, nil, "--lockd", srv.URL, "--output", "json")
	assert.Equal(t, exitRefused, code)
	requireTerminalSafe(t, out)
}

// Owner ids and process data from the store, control characters and bytes
// that are not UTF-8 included, print escaped in inspect, release and
// fleet: each cell and each process keeps one row.
func TestInspectReleaseFleet_HostileStoreDataStaysInItsRow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		store := model.New(&clock.Local{})
		now := time.Now().UnixMicro()
		tables := schema.DefaultTables()
		put := func(table, row string, cells ...lockstep.Cell) {
			t.Helper()
			require.NoError(t, store.Put(ctx, table, row, cells...))
		}
		put(tables.QueueLock, "c",
			docQueueCell(now-2, notUTF8, now, time.Minute),
			docOwnerCell("a", 7, notUTF8, now, time.Minute))
		put(tables.LegacyMain, "c", docLegacyCell(notUTF8, now, time.Minute))
		e := census.Entry{Process: notUTF8, Host: "h\n1\x1b[2J", Version: "v\r7", Configured: lockstep.ModeNew, Time: time.Now()}
		cell, err := e.Cell(now, time.Minute)
		require.NoError(t, err)
		put(tables.FleetCensus, census.Row, cell)

		a, out, _ := modelApp(store, "")
		mustRun(t, a, "inspect", "c")
		requireTerminalSafe(t, out.String())
		want := field(notUTF8)
		assert.Equal(t, `"ok\n  s-9  ops  admin  10s  -  -\r\x1b[2J\x1b]0;pwned\a\u202eevil\x7f\u009b\xff\xfe"`, want)
		assert.Contains(t, out.String(), "held by "+want+", 1 in line")
		assert.Regexp(t, `\n  owner +`+`"ok\\n`, out.String())
		assert.Equal(t, 1, strings.Count(out.String(), "\n  owner "), out.String())
		assert.Equal(t, 1, strings.Count(out.String(), "\n  queue "), out.String())
		assert.Equal(t, 1, strings.Count(out.String(), "\n  main "), out.String())

		a, out, _ = modelApp(store, "")
		mustRun(t, a, "inspect", "c", "--output", "json")
		requireTerminalSafe(t, out.String())

		a, out, _ = modelApp(store, "no\n")
		assert.Equal(t, exitRefused, a.run(ctx, []string{"release", "--force", "c"}))
		requireTerminalSafe(t, out.String())
		assert.Equal(t, 1, strings.Count(out.String(), "\n  legacy_main "), out.String())

		a, out, _ = modelApp(store, "")
		mustRun(t, a, "fleet")
		requireTerminalSafe(t, out.String())
		assert.Contains(t, out.String(), want+`  "h\n1\x1b[2J"  "v\r7"`)
		assert.Equal(t, 1, strings.Count(out.String(), `"v\r7"`), "one row for the process:\n%s", out)
		assert.Contains(t, out.String(), "moving to combined: blocked:")

		a, out, _ = modelApp(store, "")
		mustRun(t, a, "fleet", "--output", "json")
		requireTerminalSafe(t, out.String())
	})
}
