package history

import (
	"fmt"
	"math"
)

// Op names an operation kind.
type Op string

// The operations a worker records.
const (
	// Acquire is one Lock call; ok when it returned a lock.
	Acquire Op = "acquire"
	// Renew is one renewal attempt of a held lock's lease, as the library's
	// Observer reported it (Return is when the report arrived; Invoke is the
	// earliest instant the renewal can have been sent).
	Renew Op = "renew"
	// Lost is the worker noticing that a held lock's lease was lost: Invoke
	// is the lease deadline (LeaseDeadlineNS), Return when the worker saw
	// Lost() closed or Unlock report lockstep.ErrLost.
	Lost Op = "lost"
	// Write is one write to the harness's register in a critical section.
	Write Op = "write"
	// Release is one Unlock call.
	Release Op = "release"
)

// Outcome says whether an operation took effect.
type Outcome string

// The outcomes.
const (
	OK      Outcome = "ok"
	Fail    Outcome = "fail"
	Unknown Outcome = "unknown" // it may or may not have taken effect
)

// Register names the register a Write went to.
const (
	Fenced  = "fenced"  // the fenced register: token checked
	Counter = "counter" // the unfenced counter beside it
)

// Never is the Return of an operation whose effect may land at any later
// time (an unknown outcome, as etcd's robustness tests model a request that
// timed out): the checkers treat it as still in flight at the end of time.
const Never int64 = math.MaxInt64

// Record is one line of a history.
type Record struct {
	Process  string  `json:"process"`
	Lock     string  `json:"lock"`
	Op       Op      `json:"op"`
	Token    int64   `json:"token"`
	Mode     string  `json:"mode,omitempty"`
	InvokeNS int64   `json:"invoke_ns"`
	ReturnNS int64   `json:"return_ns"`
	Outcome  Outcome `json:"outcome"`
	Err      string  `json:"err,omitempty"`

	// Acquire, Renew, Lost: the lease deadline as far as this operation
	// knows it — the earliest instant the library's contract lets another
	// process acquire the lock: a lower bound on the send of the last
	// successful write of the lease, plus LeaseWindowNS.
	LeaseDeadlineNS int64 `json:"lease_deadline_ns,omitempty"`
	// Acquire: the lease window the deadline adds, (TTL − 1s −
	// MaxServerSkew)/2 as the worker was configured.
	LeaseWindowNS int64 `json:"lease_window_ns,omitempty"`
	// Lost, of a hold through lockd: the lock's own time had run out when
	// the client counted it lost (its deadline, what lockd's valid_for
	// said, had passed: LeaseDeadlineNS is that deadline), rather than the
	// lock being lost with time still ahead — lockd said so, the session
	// ended, or a move to another lockd did not carry it.
	Expired bool `json:"expired,omitempty"`
	// Lost, of a hold through lockd: InUnlock says the loss surfaced in the
	// worker's Unlock — the lock's Lost channel was still open when the
	// worker invoked Unlock (no loss reported, its own deadline ahead), and
	// the Unlock returned lockstep.ErrLost (its lockd failed under it and
	// the session could not move with the lock, or ended). KnownNS is when
	// the lock's Lost channel closed, as the worker's watcher saw it: the
	// evidence the checkers compare with the Unlock's invocation. InvokeNS
	// is then the Unlock's invocation.
	InUnlock bool  `json:"in_unlock,omitempty"`
	KnownNS  int64 `json:"known_ns,omitempty"`
	// Acquire: the owner id of the acquisition.
	Owner string `json:"owner,omitempty"`
	// Acquire: what a lock-manager acquisition asked for, one "<id>:<access>"
	// per request (access X, S, IS, IX or SIX; ids hierarchical under "/"),
	// as the worker passed them to LockGroup or Lock. Empty for a plain
	// Lock(Lock): one exclusive request of Lock. The checkers derive the
	// intention locks on ancestors themselves (check/access.go).
	Members []string `json:"members,omitempty"`

	// Scope is the scope of the lock the record is about: ScopeGlobal (""
	// in histories written before scopes) or ScopeLocal, whose Lock is then
	// LocalKey(id, DC): the DC-local lock of id in data centre DC, a lock of
	// its own, apart from the global lock of id and from other data
	// centres' local locks of id. The checkers judge every Lock alone, so a
	// global lock is judged across data centres and a DC-local one within
	// its own (check/scope.go adds the consistency check and the counts).
	Scope string `json:"scope,omitempty"`
	// DC is the data centre of the worker that wrote the record ("" when
	// the worker has none: a cluster of one data centre).
	DC string `json:"dc,omitempty"`

	// Write: which register, the value read and the value written.
	Register string `json:"register,omitempty"`
	Read     int64  `json:"read,omitempty"`
	Value    int64  `json:"value,omitempty"`
}

// Validate reports the first thing wrong with r, naming the field.
func (r Record) Validate() error {
	switch {
	case r.Process == "":
		return fmt.Errorf("record has no process")
	case r.Lock == "":
		return fmt.Errorf("record of %s has no lock", r.Process)
	}
	switch r.Op {
	case Acquire, Renew, Lost, Write, Release:
	default:
		return fmt.Errorf("record of %s on %s: unknown op %q (want acquire, renew, lost, write or release)", r.Process, r.Lock, r.Op)
	}
	switch r.Outcome {
	case OK, Fail, Unknown:
	default:
		return fmt.Errorf("record of %s on %s: unknown outcome %q (want ok, fail or unknown)", r.Process, r.Lock, r.Outcome)
	}
	if r.ReturnNS < r.InvokeNS {
		return fmt.Errorf("record of %s on %s (%s): returns at %d before its invocation at %d", r.Process, r.Lock, r.Op, r.ReturnNS, r.InvokeNS)
	}
	for _, m := range r.Members {
		if _, _, err := ParseMember(m); err != nil {
			return fmt.Errorf("record of %s on %s: %w", r.Process, r.Lock, err)
		}
	}
	if r.Scope != "" && r.Scope != ScopeGlobal && r.Scope != ScopeLocal {
		return fmt.Errorf("record of %s on %s: unknown scope %q (want global or local)", r.Process, r.Lock, r.Scope)
	}
	if r.Op == Write && r.Register != Fenced && r.Register != Counter {
		return fmt.Errorf("write of %s on %s: unknown register %q (want fenced or counter)", r.Process, r.Lock, r.Register)
	}
	return nil
}
