package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodeError parses stdout as exactly one JSON error document.
func decodeError(t *testing.T, stdout string) jsonErrorBody {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	var doc jsonError
	require.NoError(t, dec.Decode(&doc), "stdout: %q", stdout)
	require.False(t, dec.More(), "one document: %q", stdout)
	return doc.Error
}

// With --output json a usage error is a JSON document on stdout too, with
// the same exit code; the line on stderr stays.
func TestJSONErrors_UsageErrorIsAJSONDocument(t *testing.T) {
	for _, args := range [][]string{
		{"--output", "json", "fleat"},
		{"--output=json", "inspect"},
		{"--output", "json", "--password", "secret", "fleet"},
	} {
		code, stdout, stderr := runArgs(t, args...)
		require.Equal(t, exitUsage, code, "%v", args)
		body := decodeError(t, stdout)
		assert.Equal(t, "usage", body.Kind)
		assert.Equal(t, exitUsage, body.ExitCode)
		assert.NotEmpty(t, body.Message)
		first, _, _ := strings.Cut(stderr, "\n")
		assert.True(t, strings.HasPrefix(body.Message, strings.TrimPrefix(first, "lockctl: ")), "%v: %q vs %q", args, body.Message, first)
	}
}

// LOCKSTEP_OUTPUT=json asks for it too, for any failure: here the cluster
// cannot be reached (exit 3); --output text overrides the variable.
func TestJSONErrors_UnreachableClusterUnderLOCKSTEP_OUTPUT(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		a := newApp(strings.NewReader(""), &out, &errOut)
		a.getenv = func(k string) string { return map[string]string{"LOCKSTEP_OUTPUT": "json"}[k] }
		code := a.run(context.Background(), append([]string{"--hosts", "127.0.0.1:1", "--timeout", "2s"}, args...))
		return code, out.String(), errOut.String()
	}
	code, stdout, stderr := run("inspect", "res")
	require.Equal(t, exitUnreachable, code, stderr)
	body := decodeError(t, stdout)
	assert.Equal(t, "unreachable", body.Kind)
	assert.Equal(t, exitUnreachable, body.ExitCode)
	assert.Contains(t, body.Message, "cannot reach Cassandra")

	code, stdout, _ = run("--output", "text", "inspect", "res")
	require.Equal(t, exitUnreachable, code)
	assert.Empty(t, stdout, "--output text: the failure is on stderr only")
}

// Without JSON output nothing is printed on stdout for a failure.
func TestJSONErrors_TextOutputKeepsStdoutEmpty(t *testing.T) {
	code, stdout, _ := runArgs(t, "fleat")
	require.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
}

func TestWantsJSON(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	assert.True(t, wantsJSON([]string{"--output", "JSON"}, env("")))
	assert.True(t, wantsJSON([]string{"fleet"}, env("json")))
	assert.False(t, wantsJSON([]string{"--output=text"}, env("json")))
	assert.False(t, wantsJSON([]string{"--output=json", "--output", "text"}, env("")), "the last one wins")
	assert.False(t, wantsJSON([]string{"release", "--", "--output", "json"}, env("")), "after -- it is an argument")
}
