package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Moves written by two workers read back sorted by process and time; a
// move that ends before it began, or of an unknown language, is refused,
// naming the file and line; no moves directory is no moves.
func TestMoves_RoundTripAndRefusals(t *testing.T) {
	dir := t.TempDir()
	if ms, err := ReadMoves(dir); err != nil || ms != nil {
		t.Fatalf("no moves dir: %v, %v", ms, err)
	}
	if err := os.Mkdir(filepath.Join(dir, MovesDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"w3", "w2"} {
		w, err := Create(filepath.Join(dir, MovesDir, p+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range []int64{20, 10} {
			if err := w.WriteMove(Move{Process: p, Lang: LangGo, From: "a", To: "b", BeganNS: at, EndedNS: at + 5, Kept: 1}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	ms, err := ReadMoves(dir)
	if err != nil || len(ms) != 4 || ms[0].Process != "w2" || ms[0].BeganNS != 10 || ms[3].Process != "w3" || ms[3].BeganNS != 20 {
		t.Fatalf("read back %+v, %v", ms, err)
	}
	for _, bad := range []Move{
		{Process: "w9", Lang: LangGo, BeganNS: 5, EndedNS: 4},
		{Process: "w9", Lang: "rust", BeganNS: 1, EndedNS: 2},
		{Lang: LangGo},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v: accepted", bad)
		}
	}
	line := `{"process":"w9","lang":"go","began_ns":5,"ended_ns":4}` + "\n" + `{"process":"w9","lang":"go","began_ns":1,"ended_ns":2}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, MovesDir, "w9.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMoves(dir); err == nil || !strings.Contains(err.Error(), "w9.jsonl line 1") {
		t.Fatalf("a bad line: %v", err)
	}
}
