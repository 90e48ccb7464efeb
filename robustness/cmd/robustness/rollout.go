package main

import (
	"context"
	"time"
)

// rollout moves the fleet's phase legacy → combined → new and back while
// the faults run: before each move towards new the workers' flags change
// first (a process must be configured in a mode the target phase allows),
// after each move back the flags follow. A move the Controller refuses
// (census not yet clear, a fault in the way) is retried until its time
// slot ends; the run reports what happened. A move not reached leaves the
// flags as they were: flags the phase forbids would only make every
// acquisition of the segment fail, which the liveness checker (rightly)
// reports as the fleet's, not the runner's, doing.
func (r *runner) rollout(ctx context.Context, keyspace string, ws []*worker, start time.Time, window time.Duration) {
	type step struct{ flag, phase, flagAfter string }
	steps := []step{
		{flag: "combined", phase: "combined"},
		{phase: "new", flagAfter: "new"},
		{flag: "combined", phase: "combined"},
		{phase: "legacy", flagAfter: "legacy"},
	}
	slot := window / time.Duration(len(steps)+1)
	setFlags := func(mode string) {
		for _, w := range ws {
			if err := writeFlag(w.flagFile, mode); err != nil {
				r.logf("rollout: flag of %s: %v", w.id, err)
			}
		}
		r.logf("rollout: worker flags -> %s", mode)
	}
	for i, s := range steps {
		at := start.Add(time.Duration(i+1) * slot)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(at)):
		}
		if s.flag != "" {
			setFlags(s.flag)
		}
		deadline := at.Add(slot)
		moved := false
		for {
			err := r.lockctl(ctx, keyspace, "phase", "set", "--drain", "5s", s.phase)
			if err == nil {
				r.logf("rollout: phase -> %s", s.phase)
				moved = true
				break
			}
			if ctx.Err() != nil || time.Now().After(deadline) {
				r.logf("rollout: phase -> %s not reached in its slot: %v", s.phase, err)
				break
			}
			time.Sleep(time.Second)
		}
		switch {
		case s.flagAfter != "" && moved:
			setFlags(s.flagAfter)
		case s.flagAfter != "":
			r.logf("rollout: worker flags stay: the phase did not reach %s", s.phase)
		}
	}
}
