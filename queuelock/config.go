package queuelock

import (
	"github.com/lockstep-go/lockstep/internal/queue"
)

// DefaultTable is the table the queue lock uses unless Options.Table says
// otherwise.
const DefaultTable = queue.DefaultTable

// DefaultMaxClockSkew is Options.MaxClockSkew's default.
const DefaultMaxClockSkew = queue.DefaultMaxClockSkew

// Options configure a Locker: the zero value of every field means its
// default, a nil *Options means all defaults, and New refuses invalid
// values. Its fields (tables, TTL, Renew, MaxServerSkew, Clock, ProcessID,
// Logger, Observer, Fencing, Separator, Deadlock, …) and their defaults are
// documented on the type it names.
type Options = queue.Options

// Wake configures wake-ups on release. Its fields:
//
//   - Transport sends and receives this Locker's wake-ups; one per Locker
//     (wakeup.ListenUDP), closed after the Locker.
//   - Key authenticates wake-ups: at least wakeup.MinKeyBytes random bytes,
//     the same in every process of the fleet.
type Wake = queue.Wake

// TestingKnobs switch on planted defects for this module's negative
// controls (propertytests/doc.go; docs/verification.md lists them). Leave
// them nil: every one of them breaks the lock.
type TestingKnobs = queue.TestingKnobs

// Evidence is how a fenced Locker takes part in evidence-ordered fencing
// (Options.Evidence; docs/algorithms.md, section 5.3).
type Evidence = queue.Evidence

// The settings of Options.Evidence, in the order a fleet takes them.
const (
	// EvidenceOff records nothing; each token is drawn after its claim won.
	EvidenceOff = queue.EvidenceOff
	// EvidenceRecord records every release's token in the id's partition;
	// tokens are still drawn after the claim.
	EvidenceRecord = queue.EvidenceRecord
	// EvidenceUse records, and draws each claim's token beside the claim,
	// or takes it from values such a draw reserved ahead: fencing adds no
	// sequential request.
	EvidenceUse = queue.EvidenceUse
)
