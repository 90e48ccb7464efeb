package history

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// LockmanDir is the subdirectory of a history directory that holds the
// lock-manager workers' histories (rbworker --lockman): "<process>.jsonl"
// files of Events. ReadDir does not descend into it; ReadLockman reads it.
const LockmanDir = "lockman"

// EventOp names what a lock-manager worker's Event is about.
type EventOp string

// The events of a lock-manager worker: deadlock-prone units of work, which
// take ids "dl-N" nested under one reentrancy holder, and transfers of
// queue locks "tx-N" from one process to another (Share, Adopt, Unlock).
const (
	// EvAcquire is one blocking acquisition of ID in Access (X or S):
	// Invoke to Return is its wait. Holding lists what the unit of work
	// held when it asked ("<id>:<access>"); Reentrant marks an id the unit
	// already held. Outcome ok, fail, or deadlock with Cycle.
	EvAcquire EventOp = "acquire"
	// EvRelease is the Unlock of what an EvAcquire (or EvAdopt) returned.
	// ValidNS is the last instant the worker saw the lock's Lost() open
	// (its hold is certain up to there); Lost says it saw it closed.
	EvRelease EventOp = "release"
	// EvShare is a giver's handover of ID: Invoke is the Share call,
	// Return when it knew the outcome; Outcome ok when the successor
	// adopted. Handover names it, and the successor's EvAdopt carries the
	// same name.
	EvShare EventOp = "share"
	// EvAdopt is a successor's Adopt of a handover: ok when it holds ID
	// under the giver's Owner and Token.
	EvAdopt EventOp = "adopt"
	// EvWrite is one write to the harness's register under a transfer
	// hold: Register, Read and Value as in Record.
	EvWrite EventOp = "write"
)

// Deadlock is the Outcome of an acquisition that failed with
// lockstep.ErrDeadlock.
const Deadlock Outcome = "deadlock"

// CycleMember is one member of the cycle a lockstep.DeadlockError reported,
// as the victim's worker copied it.
type CycleMember struct {
	Process string `json:"process"`
	ID      string `json:"id"`
	Access  string `json:"access"`
	HeldBy  string `json:"held_by"`
	HeldIn  string `json:"held_in"`
}

// Event is one line of a lock-manager worker's history.
type Event struct {
	Process   string   `json:"process"`
	Op        EventOp  `json:"op"`
	ID        string   `json:"id"`
	Access    string   `json:"access,omitempty"`
	Unit      int64    `json:"unit,omitempty"`
	Holding   []string `json:"holding,omitempty"`
	Reentrant bool     `json:"reentrant,omitempty"`
	InvokeNS  int64    `json:"invoke_ns"`
	ReturnNS  int64    `json:"return_ns"`
	Outcome   Outcome  `json:"outcome"`
	Err       string   `json:"err,omitempty"`
	// Cycle is the cycle an acquisition that failed with ErrDeadlock
	// reported, victim first.
	Cycle []CycleMember `json:"cycle,omitempty"`
	// Owner and Token are the lock's owner id and fencing token (acquire,
	// share, adopt, write).
	Owner string `json:"owner,omitempty"`
	Token int64  `json:"token,omitempty"`
	// ValidNS and Lost: see EvRelease.
	ValidNS int64 `json:"valid_ns,omitempty"`
	Lost    bool  `json:"lost,omitempty"`
	// Handover names a transfer: "<giver process>#<seq>".
	Handover string `json:"handover,omitempty"`
	// Write: which register, the value read and the value written.
	Register string `json:"register,omitempty"`
	Read     int64  `json:"read,omitempty"`
	Value    int64  `json:"value,omitempty"`
}

// Validate reports the first thing wrong with e, naming the field.
func (e Event) Validate() error {
	switch {
	case e.Process == "":
		return errors.New("event has no process")
	case e.ID == "":
		return fmt.Errorf("event of %s has no id", e.Process)
	case e.ReturnNS < e.InvokeNS:
		return fmt.Errorf("event of %s on %s (%s): returns at %d before its invocation at %d", e.Process, e.ID, e.Op, e.ReturnNS, e.InvokeNS)
	}
	switch e.Op {
	case EvAcquire, EvRelease, EvShare, EvAdopt, EvWrite:
	default:
		return fmt.Errorf("event of %s on %s: unknown op %q (want acquire, release, share, adopt or write)", e.Process, e.ID, e.Op)
	}
	switch e.Outcome {
	case OK, Fail, Unknown:
	case Deadlock:
		if e.Op != EvAcquire {
			return fmt.Errorf("event of %s on %s: outcome deadlock on a %s (only an acquire can fail with ErrDeadlock)", e.Process, e.ID, e.Op)
		}
	default:
		return fmt.Errorf("event of %s on %s: unknown outcome %q (want ok, fail, unknown or deadlock)", e.Process, e.ID, e.Outcome)
	}
	if e.Op == EvAcquire && e.Access != "X" && e.Access != "S" {
		return fmt.Errorf("acquire of %s on %s: access %q (want X or S)", e.Process, e.ID, e.Access)
	}
	for _, m := range e.Holding {
		if _, _, err := ParseMember(m); err != nil {
			return fmt.Errorf("event of %s on %s: %w", e.Process, e.ID, err)
		}
	}
	if e.Op == EvWrite && e.Register != Fenced && e.Register != Counter {
		return fmt.Errorf("write of %s on %s: unknown register %q (want fenced or counter)", e.Process, e.ID, e.Register)
	}
	return nil
}

// WriteEvent appends e as one line.
func (w *Writer) WriteEvent(e Event) error { return w.writeLine(e) }

// ReadLockman reads every "*.jsonl" file in dir's LockmanDir, in file name
// order. A directory without LockmanDir has none: nil, no error. As in
// ReadFile, a last line cut short is dropped and any other bad line is an
// error naming the file and line.
func ReadLockman(dir string) ([]Event, error) {
	sub := filepath.Join(dir, LockmanDir)
	entries, err := os.ReadDir(sub)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			names = append(names, filepath.Join(sub, e.Name()))
		}
	}
	sort.Strings(names)
	var out []Event
	for _, n := range names {
		es, err := readEvents(n)
		if err != nil {
			return nil, err
		}
		out = append(out, es...)
	}
	return out, nil
}

func readEvents(path string) ([]Event, error) { return readJSONL[Event](path) }
