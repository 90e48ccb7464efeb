package main

import (
	"fmt"

	"github.com/lockstep-go/lockstep/internal/bugs"
)

// plantable lists the process-wide defects --plant accepts.
var plantable = []bugs.Defect{bugs.HalfTTLLease, bugs.WallClockLease, bugs.UncheckedToken, bugs.StaleOwnerColumn, bugs.KeepIDState, bugs.SkipIntention}

// plant switches on the named defect for the whole process ("" plants
// nothing). The robustness module sits inside the library's import path, so
// it may import internal/bugs; a binary built without -tags lockstep_bugs
// refuses, changing nothing.
func plant(name string) (undo func(), err error) {
	if name == "" {
		return func() {}, nil
	}
	for _, d := range plantable {
		if string(d) == name {
			if !bugs.Compiled {
				return nil, fmt.Errorf("--plant %s needs a worker built with -tags lockstep_bugs", name)
			}
			return bugs.Plant(d), nil
		}
	}
	return nil, fmt.Errorf("--plant %q: unknown defect; want one of %v", name, plantable)
}
