package main

import (
	"fmt"
	"strings"

	"github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
	"github.com/lockstep-go/lockstep/testingknobs"
)

// plantable lists the defects --plant accepts, by the names the model
// checks' regression files use.
var plantable = []string{"half-ttl-lease", "wall-clock-lease", "unchecked-token", "stale-owner-column", "keep-id-state", "skip-intention", "global-at-local-quorum", reuseToken, lockdIgnoresLost}

// reuseToken is local handoff's planted defect (testingknobs.Cohort's
// ReuseToken): a goroutine handed another's store hold keeps that
// holder's fencing token instead of drawing a fresh one. It bites only a
// worker with --local-handoff.
const reuseToken = "reuse-token"

// lockdIgnoresLost is a lockd worker's planted defect, the worker's own
// (the client is the shipped one): it never looks at a lock's Lost channel
// and works on, writing the registers, until Unlock tells it the lock was
// lost — as a caller that ignores Lost() would. A worker without --lockd is
// unaffected, so a segment may plant it in every worker.
const lockdIgnoresLost = "lockd-ignores-lost"

// planted is what --plant switches on: the TestingKnobs the worker's
// Lockers are built with (newLocker), and whether they measure leases on
// the wall clock (testingknobs.WallClockLease). The zero value plants nothing.
type planted struct {
	queue     *queuelock.TestingKnobs
	legacy    *shadowlock.TestingKnobs
	combined  *combined.TestingKnobs
	migration *migration.TestingKnobs
	lease     *testingknobs.Lease // for the worker's own lease window
	wallClock bool
	// globalAtLocal serves the global locks at LOCAL_QUORUM (dial): a
	// robustness-only defect, which no library knob plants, since the
	// Cassandra store refuses those levels for a global lock at New.
	globalAtLocal bool
	// ignoreLost makes a lockd worker ignore its locks' Lost channels
	// (lockdIgnoresLost): a defect of the worker, not of lockd/client.
	ignoreLost bool
}

// plant returns the knobs of the named defect ("" plants nothing): the
// Lockers' TestingKnobs, which only the robustness suite's controls pass
// --plant to set.
func plant(name string) (planted, error) {
	var p planted
	if name == "" {
		return p, nil
	}
	q, g := &queuelock.TestingKnobs{}, &shadowlock.TestingKnobs{}
	c, m := &combined.TestingKnobs{}, &migration.TestingKnobs{}
	switch name {
	case "half-ttl-lease":
		p.lease = &testingknobs.Lease{HalfTTLLease: true}
		q.Lease, g.Lease = p.lease, p.lease
	case "wall-clock-lease":
		p.wallClock = true
	case "unchecked-token":
		f := &testingknobs.Fencing{UncheckedToken: true}
		q.Fencing, g.Fencing, c.Fencing, m.Fencing = f, f, f, f
	case "stale-owner-column":
		q.StaleOwnerColumn = true
	case "keep-id-state":
		q.KeepIDState = true
	case "global-at-local-quorum":
		p.globalAtLocal = true
	case lockdIgnoresLost:
		p.ignoreLost = true
	case reuseToken:
		m.Cohort = &testingknobs.Cohort{ReuseToken: true}
	case "skip-intention":
		mg := &testingknobs.Manager{SkipIntention: true}
		q.Manager, g.Manager, c.Manager, m.Manager = mg, mg, mg, mg
	default:
		return p, fmt.Errorf("--plant %q: unknown defect; want one of %s", name, strings.Join(plantable, ", "))
	}
	p.queue, p.legacy, p.combined, p.migration = q, g, c, m
	return p, nil
}
