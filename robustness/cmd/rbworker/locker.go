package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
	"github.com/lockstep-go/lockstep/testingknobs"
)

// locker is what the worker takes locks with.
type locker interface {
	Lock(ctx context.Context, id string) (lockstep.Lock, error)
	Close(ctx context.Context) error
}

// stores are what dial builds on the worker's session: the store of its
// global locks and, with --local-share, the DC-local store of its data
// centre (nil without).
type stores struct {
	global, local lockstep.Store
}

// dial connects to the cluster and returns the session and the stores. With
// --dc the session sends every request to that data centre's nodes and
// never fails over to another's (docs/multi-dc.md: the routing a DC-local
// store needs); the global store at --consistency takes any coordinator, so
// it shares the session. With --coordinator the session talks to that one
// node only.
func dial(c config) (*gocql.Session, stores, error) {
	var st stores
	cons, err := gocql.ParseConsistencyWrapper(c.consistency)
	if err != nil {
		return nil, st, fmt.Errorf("--consistency: %w", err)
	}
	cluster := gocql.NewCluster(c.hosts...)
	cluster.Timeout = c.requestTimeout
	cluster.ConnectTimeout = 10 * time.Second
	cluster.Consistency = cons
	cluster.Logger = log.New(io.Discard, "", 0)
	if c.dc != "" {
		cluster.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy(c.dc))
		cluster.HostFilter = gocql.DataCentreHostFilter(c.dc)
	}
	if c.coordinator != "" {
		// Every request through this node: its clock decides which TTL'd
		// cells a read sees (a read's now is its coordinator's).
		cluster.HostFilter = gocql.WhiteListHostFilter(c.coordinator)
	}
	session, err := cluster.CreateSession()
	if err != nil {
		return nil, st, fmt.Errorf("cannot reach Cassandra at %v: %w", c.hosts, err)
	}
	if c.localShare > 0 || c.planted.globalAtLocal {
		if st.local, err = cassandra.New(session, c.keyspace, cassandra.WithLocalDC(c.dc)); err != nil {
			session.Close()
			return nil, st, err
		}
	}
	if c.planted.globalAtLocal {
		// The planted defect: the global locks go through the DC-local
		// LOCAL_QUORUM store with its scope hidden, so the Lockers take it
		// for a global one and keep the locks in the global rows, at
		// LOCAL_QUORUM (the mistake a global store refuses at New).
		st.global = hideScope{st.local}
		return session, st, nil
	}
	if st.global, err = cassandra.New(session, c.keyspace, cassandra.WithConsistency(cons, cons)); err != nil {
		session.Close()
		return nil, st, err
	}
	return session, st, nil
}

// window is the lease window the library under test computes for the
// configured TTL and skew (a planted lease defect changes it), in ns.
func window(c config) int64 {
	return int64(testingknobs.LeaseWindow(c.ttl, c.maxServerSkew, c.planted.lease))
}

// newLocker builds the worker's locker: migration.New, the public entry
// point, unless --bypass-migration asks for the algorithms directly. All
// construction of library lockers is in this function.
func newLocker(c config, store lockstep.Store, obs lockstep.Observer) (locker, error) {
	var clk lockstep.Clock = &clock.Local{}
	if c.planted.wallClock {
		clk = testingknobs.WallClockLease(clk)
	}
	var fence *clock.Global
	if c.fencing {
		g, err := clock.NewGlobal(store, "", clk)
		if err != nil {
			return nil, err
		}
		fence = g
	}
	flag := migration.File(c.flagFile)
	if c.bypassMigration {
		return newDirect(c, store, clk, fence, flag, obs)
	}
	sep := ""
	if c.managerShare > 0 {
		sep = separator
	}
	return migration.New(store, flag, &migration.Options{Clock: clk, ProcessID: c.process, Separator: sep,
		Queue:        &queuelock.Options{TTL: c.ttl, MaxServerSkew: c.maxServerSkew, Evidence: c.evidence, TestingKnobs: c.planted.queue},
		Legacy:       &shadowlock.Options{TTL: c.ttl, MaxServerSkew: c.maxServerSkew, TestingKnobs: c.planted.legacy},
		Fencing:      fence,
		LocalHandoff: c.localHandoff,
		Observer:     obs,
		TestingKnobs: c.planted.migration,
	})
}

// direct takes each lock with the algorithm of the flag's mode, bypassing
// the migration layer's census and phase guard: an old binary's view.
type direct struct {
	flag     migration.FlagSource
	legacy   *shadowlock.Locker
	queue    *queuelock.Locker
	combined *combined.Locker
}

func newDirect(c config, store lockstep.Store, clk lockstep.Clock, fence *clock.Global, flag migration.FlagSource, obs lockstep.Observer) (*direct, error) {
	d := &direct{flag: flag}
	var err error
	if d.legacy, err = shadowlock.New(store, &shadowlock.Options{TTL: c.ttl, MaxServerSkew: c.maxServerSkew,
		Clock: clk, ProcessID: c.process + ":legacy", Fencing: fence, Observer: obs, TestingKnobs: c.planted.legacy}); err != nil {
		return nil, err
	}
	if d.queue, err = queuelock.New(store, &queuelock.Options{TTL: c.ttl, MaxServerSkew: c.maxServerSkew,
		Clock: clk, ProcessID: c.process + ":new", Fencing: fence, Evidence: c.evidence, Observer: obs, TestingKnobs: c.planted.queue}); err != nil {
		return nil, errors.Join(err, d.Close(context.Background()))
	}
	if d.combined, err = combined.New(store, &combined.Options{
		Queue: &queuelock.Options{TTL: c.ttl, MaxServerSkew: c.maxServerSkew, Clock: clk,
			ProcessID: c.process + ":combined", Evidence: halfEvidence(c.evidence), Observer: obs, TestingKnobs: c.planted.queue},
		Legacy: &shadowlock.Options{TTL: c.ttl, MaxServerSkew: c.maxServerSkew, Clock: clk,
			ProcessID: c.process + ":combined", Observer: obs, TestingKnobs: c.planted.legacy},
		Fencing:      fence,
		TestingKnobs: c.planted.combined}); err != nil {
		return nil, errors.Join(err, d.Close(context.Background()))
	}
	return d, nil
}

func (d *direct) Lock(ctx context.Context, id string) (lockstep.Lock, error) {
	m, err := d.flag.Mode(ctx)
	if err != nil {
		return nil, err
	}
	switch m {
	case lockstep.ModeLegacy:
		return d.legacy.Lock(ctx, id)
	case lockstep.ModeCombined:
		return d.combined.Lock(ctx, id)
	default:
		return d.queue.Lock(ctx, id)
	}
}

func (d *direct) Close(ctx context.Context) error {
	var errs []error
	if d.combined != nil {
		errs = append(errs, d.combined.Close(ctx))
	}
	if d.legacy != nil {
		errs = append(errs, d.legacy.Close(ctx))
	}
	if d.queue != nil {
		errs = append(errs, d.queue.Close(ctx))
	}
	return errors.Join(errs...)
}
