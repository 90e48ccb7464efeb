package deadlock

import "github.com/lockstep-go/lockstep/internal/bugs"

// Knobs switch on this package's planted defects, for the negative
// controls (propertytests/doc.go). Each is checked at one point, in
// victimCycle. Production code leaves them zero.
type Knobs struct {
	// Undetected publishes the waits but never fails one: a cycle lasts
	// until its members' contexts end.
	Undetected bool
	// VictimUnshared makes every process rank its own wait below every
	// other, instead of by the (start, name) every process reads alike:
	// each member of a cycle takes another for its victim, and none fails.
	VictimUnshared bool
	// Bystander fails a wait that sees a cycle among waits ranked below its
	// own, whether or not it is part of it.
	Bystander bool
}

// planted returns k with the process-wide defects of internal/bugs (build
// tag lockstep_bugs) switched on as well: the one place this package reads
// them, until its knobs are passed in by the Lockers.
func (k Knobs) planted() Knobs {
	k.Undetected = k.Undetected || bugs.Planted(bugs.DeadlockUndetected)
	k.VictimUnshared = k.VictimUnshared || bugs.Planted(bugs.DeadlockVictimUnshared)
	k.Bystander = k.Bystander || bugs.Planted(bugs.DeadlockBystander)
	return k
}

// victimCycle is VictimCycle with the planted defects.
func (d *Detector) victimCycle(recs []Record, self string) []Record {
	switch {
	case d.knobs.Undetected, d.knobs.VictimUnshared:
		return nil
	case d.knobs.Bystander:
		if c := VictimCycle(recs, self); c != nil {
			return c
		}
		return bystander(recs, self)
	}
	return VictimCycle(recs, self)
}
