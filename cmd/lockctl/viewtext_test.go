package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What a lockd's view answers is written by others: an id, owner, comment
// or process with ESC, a newline or a bidi override reaches neither the text
// nor the JSON raw, in every panel.
func TestView_EscapesWhatTheLockdSends(t *testing.T) {
	evil := `x\u001b[2J\nforged\u202e`
	doc := `{"principal": "` + evil + `", "at": "2026-01-02T03:04:05Z",
	  "fleet": {"phase": "new", "description": "` + evil + `", "allows": [], "moves": [{"to": "` + evil + `", "blocked": true, "text": "` + evil + `", "blockers": []}],
	    "processes": [{"process": "` + evil + `", "host": "` + evil + `", "version": "` + evil + `", "configured": "new", "held": {"` + evil + `": 1}, "acquiring": {}}]},
	  "hot": {"ids": [{"id": "` + evil + `", "state": "held", "legacy": "` + evil + `",
	    "holders": [{"owner": "` + evil + `", "process": "` + evil + `", "access": "X", "session": "` + evil + `", "lock": "` + evil + `"}],
	    "waiters": [{"position": 1, "session": "` + evil + `", "principal": "` + evil + `", "access": "shared", "comment": "` + evil + `"}]}]},
	  "sessions": {"all": true, "sessions": [{"session": "` + evil + `", "name": "` + evil + `", "principal": "` + evil + `", "identity": "` + evil + `",
	    "locks": [{"lock": "` + evil + `", "items": [{"id": "` + evil + `", "access": "` + evil + `"}]}]}]},
	  "deadlocks": [{"at": "2026-01-02T03:04:05Z", "cycle": [{"process": "` + evil + `", "waits": "` + evil + `", "access": "X", "held_by": "` + evil + `", "held_in": "X", "comment": "` + evil + `"}]}],
	  "charts": [{"title": "` + evil + `", "unit": "` + evil + `", "lines": [{"mode": "` + evil + `", "values": [1, 2]}]}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(doc))
	}))
	t.Cleanup(srv.Close)
	for _, panel := range []string{"fleet", "hot", "sessions", "deadlocks", "charts"} {
		for _, format := range []string{"text", "json"} {
			code, out, errOut := runLockctl(t, nil, "view", panel, "--lockd", srv.URL, "--output", format)
			require.Equal(t, exitOK, code, errOut)
			assert.Equal(t, 0, strings.Count(out, "\x1b"), "%s %s: %s", panel, format, out)
			assert.NotContains(t, out, "\u202e", panel, format)
			assert.NotContains(t, out, "\nforged", panel, format)
			if format == "text" {
				assert.Contains(t, out, `x\x1b[2J\nforged\u202e`, panel)
			}
		}
	}
}
