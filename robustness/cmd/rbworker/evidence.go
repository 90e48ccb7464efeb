package main

import (
	"fmt"

	"github.com/lockstep-go/lockstep/queuelock"
)

// parseEvidence reads --evidence: off, record or use, the last two only
// with fencing tokens (evidence records them).
func parseEvidence(v string, fencing bool) (queuelock.Evidence, error) {
	for _, e := range []queuelock.Evidence{queuelock.EvidenceOff, queuelock.EvidenceRecord, queuelock.EvidenceUse} {
		if v != e.String() {
			continue
		}
		if e != queuelock.EvidenceOff && !fencing {
			return e, fmt.Errorf("--evidence %s needs --fencing: evidence records fencing tokens", v)
		}
		return e, nil
	}
	return queuelock.EvidenceOff, fmt.Errorf("--evidence %q: give off, record or use", v)
}

// halfEvidence is what a combined Locker's queue half takes of e: it
// records at record and at use, and never draws beside a claim (package
// combined refuses EvidenceUse).
func halfEvidence(e queuelock.Evidence) queuelock.Evidence {
	return min(e, queuelock.EvidenceRecord)
}
