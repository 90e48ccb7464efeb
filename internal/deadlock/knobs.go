package deadlock

// Knobs switch on this package's planted defects, for the negative
// controls (propertytests/doc.go); a Locker passes them in from its
// TestingKnobs' Manager field. Each is checked at one point, in
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
