package history

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// RegisterFile is the name, inside a history directory, of the register's
// log (register.Save writes it); ReadDir skips it.
const RegisterFile = "register-ops.jsonl"

// Writer appends records to a file, one line and one write call each. Safe
// for concurrent use.
type Writer struct {
	mu sync.Mutex
	f  *os.File
}

// Create creates (or truncates) the history file at path.
func Create(path string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return &Writer{f: f}, nil
}

// Write appends r as one line.
func (w *Writer) Write(r Record) error { return w.writeLine(r) }

// writeLine appends v as one JSON line: the workers' records and the
// lock-manager workers' events alike.
func (w *Writer) writeLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.f.Write(b); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// Close syncs and closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	serr := w.f.Sync()
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if serr != nil {
		return fmt.Errorf("history: %w", serr)
	}
	return nil
}

// ReadFile reads one history file. A last line cut short (a worker killed
// mid-write) is dropped; any other line that does not parse or validate is
// an error naming the file and line.
func ReadFile(path string) ([]Record, error) { return readJSONL[Record](path) }

// readJSONL reads a file of one JSON value per line, each validated: a
// last line cut short (its writer killed mid-write) is dropped; any other
// line that does not parse or validate is an error naming the file and
// line. The workers' records and the lock-manager workers' events share it.
func readJSONL[T interface{ Validate() error }](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var pendingErr error
	for n := 1; sc.Scan(); n++ {
		if pendingErr != nil {
			return nil, pendingErr // a bad line that was not the last
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			pendingErr = fmt.Errorf("history: %s line %d: %w", path, n, err)
			continue
		}
		if err := v.Validate(); err != nil {
			return nil, fmt.Errorf("history: %s line %d: %w", path, n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("history: %s: %w", path, err)
	}
	return out, nil
}

// ReadDir reads every "*.jsonl" history in dir but the register's log, in
// file name order. A directory with no history is an error.
func ReadDir(dir string) ([]Record, error) {
	// Not filepath.Glob: a directory name may hold pattern characters.
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			names = append(names, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(names)
	var out []Record
	files := 0
	for _, n := range names {
		if filepath.Base(n) == RegisterFile {
			continue
		}
		rs, err := ReadFile(n)
		if err != nil {
			return nil, err
		}
		files++
		out = append(out, rs...)
	}
	if files == 0 {
		return nil, fmt.Errorf("history: no worker history (*.jsonl) in %s; pass the directory the runner gave the workers' --history files", dir)
	}
	return out, nil
}
