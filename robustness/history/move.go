package history

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MovesDir is the directory, inside a history directory, of the lockd
// clients' fail-overs: one file per worker, "<process>.jsonl", one Move a
// line. ReadDir does not read it (it reads no subdirectory).
const MovesDir = "moves"

// The languages of the lockd clients whose moves a run records.
const (
	LangGo     = "go"
	LangPython = "python"
)

// Move is one fail-over of a lockd client given several lockds: its session
// moved, with its locks, from the lockd From to To, as the client reported
// it (lockd/client's Options.OnMove, the Python client's on_move).
type Move struct {
	Process string `json:"process"`
	Lang    string `json:"lang"` // LangGo or LangPython
	From    string `json:"from"`
	To      string `json:"to,omitempty"` // "" when the move failed and the session ended
	// BeganNS is when the client noticed its lockd had failed and set out,
	// EndedNS when the move finished or failed (ns since the epoch).
	BeganNS int64 `json:"began_ns"`
	EndedNS int64 `json:"ended_ns"`
	// Kept and Lost count the locks the move kept and reported lost.
	Kept int    `json:"kept"`
	Lost int    `json:"lost"`
	Err  string `json:"err,omitempty"` // why a failed move ended the session
}

// Validate reports the first thing wrong with m, naming the field.
func (m Move) Validate() error {
	switch {
	case m.Process == "":
		return fmt.Errorf("move has no process")
	case m.Lang != LangGo && m.Lang != LangPython:
		return fmt.Errorf("move of %s: unknown lang %q (want %s or %s)", m.Process, m.Lang, LangGo, LangPython)
	case m.EndedNS < m.BeganNS:
		return fmt.Errorf("move of %s: ends at %d before it began at %d", m.Process, m.EndedNS, m.BeganNS)
	case m.Kept < 0 || m.Lost < 0:
		return fmt.Errorf("move of %s: negative counts (kept %d, lost %d)", m.Process, m.Kept, m.Lost)
	}
	return nil
}

// WriteMove appends m as one line.
func (w *Writer) WriteMove(m Move) error { return w.writeLine(m) }

// ReadMoves reads every fail-over below the history directory dir
// (MovesDir), sorted by process and then by BeganNS. No MovesDir means no
// moves.
func ReadMoves(dir string) ([]Move, error) {
	entries, err := os.ReadDir(filepath.Join(dir, MovesDir))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var out []Move
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		ms, err := readJSONL[Move](filepath.Join(dir, MovesDir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Process != out[j].Process {
			return out[i].Process < out[j].Process
		}
		return out[i].BeganNS < out[j].BeganNS
	})
	return out, nil
}
