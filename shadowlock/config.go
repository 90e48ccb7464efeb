package shadowlock

import (
	"github.com/lockstep-go/lockstep/internal/shadow"
)

// Default table names of the frozen legacy format.
const (
	DefaultMainTable   = shadow.DefaultMainTable
	DefaultShadowTable = shadow.DefaultShadowTable
)

// Options configure a Locker: the zero value of every field means its
// default, a nil *Options means all defaults, and New refuses invalid
// values. Its fields (tables, TTL, Renew, MaxServerSkew, Clock, ProcessID,
// Logger, Observer, Fencing, Separator, Deadlock, …) and their defaults are
// documented on the type it names.
type Options = shadow.Options

// TestingKnobs switch on planted defects for this module's negative
// controls (propertytests/doc.go). Leave them nil: every one of them breaks
// the lock.
type TestingKnobs = shadow.TestingKnobs
