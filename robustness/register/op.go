package register

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// Kind names a request.
type Kind string

// The requests the server logs.
const (
	ReadFenced   Kind = "read"         // read the fenced register (a token raises the fence)
	WriteFenced  Kind = "write"        // write the fenced register
	ReadCounter  Kind = "read-counter" // read the unfenced counter
	WriteCounter Kind = "write-counter"
)

// Op is one request the server applied or rejected.
type Op struct {
	Seq     int64  `json:"seq"`     // position in the server's order, from 1
	AtNS    int64  `json:"at_ns"`   // when it was applied, ns since the server's epoch
	Kind    Kind   `json:"kind"`    // what it was
	Lock    string `json:"lock"`    // the lock id whose register it touched
	Process string `json:"process"` // who sent it
	Token   int64  `json:"token"`   // the token it carried (0: none)
	// Prev is, for a write, the value the writer had read; Value the value
	// it wrote. For a read, Value is the value returned.
	Prev  int64 `json:"prev"`
	Value int64 `json:"value"`
	// Before is the register's value when the request arrived: a write with
	// Prev != Before lost an update.
	Before int64 `json:"before"`
	// Fence is the register's fence when the request arrived.
	Fence int64 `json:"fence"`
	// Accepted is false for a fenced write the fence rejected.
	Accepted bool `json:"accepted"`
}

// Save writes ops to path as JSON lines (history.RegisterFile in a history
// directory is where cmd/rbcheck looks).
func Save(path string, ops []Op) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("register: %w", err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, op := range ops {
		if err := enc.Encode(op); err != nil {
			f.Close()
			return fmt.Errorf("register: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("register: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("register: %w", err)
	}
	return nil
}

// Load reads what Save wrote.
func Load(path string) ([]Op, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("register: %w", err)
	}
	defer f.Close()
	var ops []Op
	dec := json.NewDecoder(bufio.NewReader(f))
	for dec.More() {
		var op Op
		if err := dec.Decode(&op); err != nil {
			return nil, fmt.Errorf("register: %s, op %d: %w", path, len(ops)+1, err)
		}
		ops = append(ops, op)
	}
	return ops, nil
}
