package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstep-go/lockstep/robustness/history"
	"github.com/lockstep-go/lockstep/robustness/register"
)

func writeHistory(t *testing.T, dir, name string, recs ...history.Record) {
	t.Helper()
	w, err := history.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func hold(p string, token, inv, ret, rel int64) []history.Record {
	return []history.Record{
		{Process: p, Lock: "l", Op: history.Acquire, Token: token, InvokeNS: inv, ReturnNS: ret, Outcome: history.OK, LeaseDeadlineNS: inv + 1e9},
		{Process: p, Lock: "l", Op: history.Release, InvokeNS: rel, ReturnNS: rel + 1, Outcome: history.OK},
	}
}

func TestRbcheck_ExitCodes(t *testing.T) {
	good, bad := t.TempDir(), t.TempDir()
	writeHistory(t, good, "a.jsonl", hold("a", 1, 0, 10, 20)...)
	writeHistory(t, good, "b.jsonl", hold("b", 2, 5, 30, 40)...)
	writeHistory(t, bad, "a.jsonl", hold("a", 1, 0, 10, 50)...)
	writeHistory(t, bad, "b.jsonl", hold("b", 2, 5, 30, 40)...)
	for _, d := range []string{good, bad} {
		if err := register.Save(filepath.Join(d, history.RegisterFile), nil); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut strings.Builder
	if code := run([]string{good}, &out, &errOut); code != 0 {
		t.Fatalf("good history: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := run([]string{bad}, &out, &errOut); code != 1 || !strings.Contains(out.String(), "[mutex]") {
		t.Fatalf("overlapping holds: exit %d\n%s", code, out.String())
	}
	os.Remove(filepath.Join(good, history.RegisterFile))
	errOut.Reset()
	if code := run([]string{good}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "--register-ops") {
		t.Fatalf("missing register log: exit %d, %s", code, errOut.String())
	}
}
