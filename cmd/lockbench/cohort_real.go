package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep/clock"
)

// cohortCloseTimeout bounds closing one process's Locker after a real run
// (releasing what it still holds or retains).
const cohortCloseTimeout = 30 * time.Second

// runRealCohort runs cfg's experiment for every algorithm in turn on the
// Cassandra cluster o names: the bench keyspace is prepared once
// (prepareCassandra), then each algorithm's run takes an id fresh to it.
// Every process is a Locker of its own, with its own process id and its own
// gocql session (newRealContender), in this OS process; the run is wall
// time on the local clock. It returns the runs and the header's description
// of the backend (cohortConfig.real).
func runRealCohort(o realOptions, cfg cohortConfig, algos []algorithm) ([]cohortRun, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
	version, err := prepareCassandra(ctx, o)
	cancel()
	if err != nil {
		return nil, "", err
	}
	where := fmt.Sprintf("Cassandra %s at %s (keyspace %s, RF %d; every process a Locker of its own with its own process id and gocql session, all in one OS process)",
		version, o.hosts, o.keyspace, o.replication)
	tag := runTag()
	var runs []cohortRun
	for _, a := range algos {
		r, err := runRealCohortOnce(o, cfg, a, tag)
		if err != nil {
			return nil, where, fmt.Errorf("%s: %w", a, err)
		}
		runs = append(runs, r)
	}
	return runs, where, nil
}

// runRealCohortOnce is one algorithm's run on the real backend. Each
// process's Locker is warmed up (warmUp: one Lock and Unlock of an id of its
// own, so connections are open and statements prepared) before the run
// starts.
func runRealCohortOnce(o realOptions, cfg cohortConfig, a algorithm, tag string) (_ cohortRun, err error) {
	id := fmt.Sprintf("cohort-%s-%s", tag, a)
	procs := make([]contender, 0, cfg.processes)
	defer func() {
		for _, c := range procs {
			ctx, cancel := context.WithTimeout(context.Background(), cohortCloseTimeout)
			err = errors.Join(err, c.Close(ctx))
			cancel()
		}
	}()
	for i := range cfg.processes {
		job := o.job(a, fmt.Sprintf("%s-cohort-%s-p%d", tag, a, i), id, 0, cfg.hold, cfg.poll)
		job.Fencing, job.LocalHandoff, job.Retain = cfg.fencing, cfg.bound, cfg.retain
		c, err := newRealContender(job)
		if err != nil {
			return cohortRun{}, fmt.Errorf("process %d: %w", i, err)
		}
		procs = append(procs, c)
		if err := warmUp(c, job); err != nil {
			return cohortRun{}, fmt.Errorf("process %d: %w", i, err)
		}
	}
	r := newCohortRun(cfg, a)
	return r, r.contend(procs, &clock.Local{}, id, cfg)
}
