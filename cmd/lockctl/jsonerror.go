package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// With --output json (or LOCKSTEP_OUTPUT=json), a failure is also a JSON
// document on stdout, so that a pipeline (lockctl fleet --output json | jq)
// sees it instead of empty input:
//
//	{"error": {"message": "...", "kind": "unreachable", "exit_code": 3}}
//
// kind is usage, failed, unreachable, refused, lost (lock: exit 5) or
// interrupted (lock: 128 + the signal's number), as the exit code says; the
// exit code and the one line on stderr are what they are without it. The
// exit status of lock's command is its own: lockctl reports nothing for it.

// jsonError is the document printed for a failure.
type jsonError struct {
	Error jsonErrorBody `json:"error"`
}

type jsonErrorBody struct {
	Message  string `json:"message"`
	Kind     string `json:"kind"`
	ExitCode int    `json:"exit_code"`
}

// exitKinds names each exit code's kind of failure.
var exitKinds = map[int]string{exitFailed: "failed", exitUsage: "usage", exitUnreachable: "unreachable", exitRefused: "refused",
	exitLost: "lost"}

// exitKind names code's kind of failure: 128 + n is lock interrupted by
// signal n while it waited.
func exitKind(code int) string {
	if code > 128 {
		return "interrupted"
	}
	return exitKinds[code]
}

// wantsJSON reports whether the invocation asked for JSON output: by
// --output (the last one given before "--" wins, as the flag parser does) or,
// without it, by LOCKSTEP_OUTPUT. It reads the arguments itself, so that a
// line the parser refused is answered in JSON too.
func wantsJSON(args []string, getenv func(string) string) bool {
	out, given := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		switch {
		case a == "--output" && i+1 < len(args):
			out, given = args[i+1], true
			i++
		case strings.HasPrefix(a, "--output="):
			out, given = strings.TrimPrefix(a, "--output="), true
		}
	}
	if !given {
		out = getenv("LOCKSTEP_OUTPUT")
	}
	return strings.ToLower(strings.TrimSpace(out)) == "json"
}

// reportJSON prints err's document on stdout.
func (a *app) reportJSON(err error, code int) {
	b, merr := json.Marshal(jsonError{jsonErrorBody{Message: oneLine(err), Kind: exitKind(code), ExitCode: code}})
	if merr != nil { // a string and an int always marshal
		return
	}
	fmt.Fprintf(a.stdout, "%s\n", escapeJSON(b))
}
