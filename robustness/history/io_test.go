package history

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestHistory_RoundTripAndCutLastLine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run [new]*") // pattern characters are just characters
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := Create(filepath.Join(dir, "p1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	in := []Record{
		{Process: "p1", Lock: "lock-0", Op: Acquire, Token: 7, Mode: "new", InvokeNS: 1, ReturnNS: 5, Outcome: OK, LeaseDeadlineNS: 9, LeaseWindowNS: 8},
		{Process: "p1", Lock: "lock-0+lock-0/a", Op: Acquire, Mode: "new", InvokeNS: 2, ReturnNS: 5, Outcome: OK, LeaseDeadlineNS: 9, LeaseWindowNS: 8,
			Members: []string{"lock-0:S", "lock-0/a:X"}},
		{Process: "p1", Lock: "lock-0", Op: Write, Token: 7, InvokeNS: 6, ReturnNS: 7, Outcome: OK, Register: Fenced, Read: 3, Value: 4},
		{Process: "p1", Lock: "lock-0", Op: Release, InvokeNS: 8, ReturnNS: Never, Outcome: Unknown, Err: "timeout"},
	}
	for _, r := range in {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// A worker killed mid-write leaves half a line: it is dropped.
	f, _ := os.OpenFile(filepath.Join(dir, "p1.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"process":"p1","lock":"lo`)
	f.Close()
	if err := writeRegisterLog(filepath.Join(dir, RegisterFile)); err != nil {
		t.Fatal(err)
	}
	out, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("read %d records, want %d", len(out), len(in))
	}
	for i := range in {
		if !reflect.DeepEqual(out[i], in[i]) {
			t.Fatalf("record %d: got %+v want %+v", i, out[i], in[i])
		}
	}
}

// writeRegisterLog stands in for the register's log, which ReadDir must skip.
func writeRegisterLog(path string) error { return os.WriteFile(path, []byte(`{"seq":1}`+"\n"), 0o644) }

func TestHistory_BadLineInTheMiddleIsAnError(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "p.jsonl"), []byte("{nope\n"+`{"process":"p","lock":"l","op":"release","outcome":"ok"}`+"\n"), 0o644)
	if _, err := ReadDir(dir); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("err = %v, want one naming line 1", err)
	}
	os.WriteFile(filepath.Join(dir, "p.jsonl"), []byte(`{"process":"p","lock":"l","op":"grab","outcome":"ok"}`+"\n"), 0o644)
	if _, err := ReadDir(dir); err == nil || !strings.Contains(err.Error(), "unknown op") {
		t.Fatalf("err = %v, want unknown op", err)
	}
	if _, err := ReadDir(t.TempDir()); err == nil {
		t.Fatal("an empty directory read as a history")
	}
}

func TestClock_SharesEpochAcrossClocks(t *testing.T) {
	epoch := time.Now().Add(-time.Second).UnixNano()
	a, b := NewClock(epoch), NewClock(epoch)
	ta, tb := a.Now(), b.Now()
	if ta < int64(time.Second) || tb < ta || tb-ta > int64(50*time.Millisecond) {
		t.Fatalf("clocks on one epoch read %d and %d", ta, tb)
	}
	now := time.Now()
	if d := a.At(now) - b.At(now); d > int64(time.Millisecond) || d < -int64(time.Millisecond) {
		t.Fatalf("one instant differs by %dns between clocks", d)
	}
}

func TestMember_ParseAndRefuse(t *testing.T) {
	id, acc, err := ParseMember(Member("a/b:c", "SIX"))
	require.NoError(t, err)
	require.Equal(t, "a/b:c", id)
	require.Equal(t, "SIX", acc)
	for _, bad := range []string{"", "a", ":X", "a:", "a:x", "a:W"} {
		_, _, err := ParseMember(bad)
		require.Error(t, err, bad)
	}
	r := Record{Process: "p", Lock: "l", Op: Acquire, Outcome: OK, Members: []string{"l:Q"}}
	require.ErrorContains(t, r.Validate(), `unknown access "Q"`)
}

func TestLocalKey_SplitsBack(t *testing.T) {
	id, dc, ok := SplitLocal(LocalKey("local-3", "dc2"))
	if !ok || id != "local-3" || dc != "dc2" {
		t.Fatalf("SplitLocal(LocalKey) = %q %q %v", id, dc, ok)
	}
	for _, k := range []string{"lock-0", "lock-0/a", "@dc1", "local-0@"} {
		if _, _, ok := SplitLocal(k); ok {
			t.Errorf("SplitLocal(%q) took it for a DC-local key", k)
		}
	}
	if err := (Record{Process: "p", Lock: "l", Op: Acquire, Outcome: OK, Scope: "regional"}).Validate(); err == nil {
		t.Error("scope regional accepted")
	}
}
