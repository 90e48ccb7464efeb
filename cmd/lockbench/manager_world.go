package main

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// mgrSeparator is the hierarchy separator of the manager scenario's ids.
const mgrSeparator = "/"

// newManagerLocker returns one client's GroupLocker of this module, with
// hierarchical ids (Separator "/").
func newManagerLocker(a algorithm, p lockerParams) (groupLocker, error) {
	queue := &queuelock.Options{Clock: p.clock, ProcessID: p.process, Poll: p.poll}
	legacy := &shadowlock.Options{Clock: p.clock, ProcessID: p.process, Rand: p.rand}
	var (
		l   lockstep.GroupLocker
		err error
	)
	switch a {
	case algoNew, algoNewRanged:
		queue.Separator = mgrSeparator
		queue.IntentionRange = a == algoNewRanged
		l, err = queuelock.New(p.store, queue)
	case algoLegacy:
		legacy.Separator = mgrSeparator
		l, err = shadowlock.New(p.store, legacy)
	case algoCombined: // the halves take no ancestors: combined does, once for both, every member exclusive
		l, err = combined.New(p.store, &combined.Options{Queue: queue, Legacy: legacy, Separator: mgrSeparator})
	default:
		return nil, fmt.Errorf("%s is not an algorithm of this module", a)
	}
	if err != nil {
		return nil, fmt.Errorf("%s locker for client %s: %w", a, p.process, err)
	}
	return lockstepGroup{l}, nil
}

// simWorld is a cell on the embedded model on virtual time: a fresh store
// with a latency per request, as in the scale scenario.
type simWorld struct {
	clk   *model.ManualClock
	store lockstep.Store
	seed  uint64
	poll  time.Duration
}

func newSimWorld(minLat, maxLat, poll time.Duration, seed uint64) (*simWorld, error) {
	clk := model.NewManualClock(0)
	faulty, err := model.NewFaulty(model.New(clk), model.FaultConfig{
		MinLatency: minLat, MaxLatency: maxLat, Clock: clk, Rand: rand.New(rand.NewPCG(seed, 3)),
	})
	if err != nil {
		return nil, err
	}
	return &simWorld{clk: clk, store: faulty, seed: seed, poll: poll}, nil
}

func (w *simWorld) lockers(a algorithm, n int) ([]groupLocker, error) {
	out := make([]groupLocker, n)
	for i := range out {
		l, err := newManagerLocker(a, lockerParams{store: w.store, clock: w.clk, process: fmt.Sprintf("p%d", i),
			poll: w.poll, rand: rand.New(rand.NewPCG(w.seed, uint64(i)))})
		if err != nil {
			return nil, err
		}
		out[i] = l
	}
	return out, nil
}

func (w *simWorld) clock() lockstep.Clock { return w.clk }
func (w *simWorld) run(work func())       { runVirtual(w.clk, work) }
func (w *simWorld) prefix() string        { return "m" }

// realWorld is a cell on a real cluster: every client a Locker of its own
// (its own process id) in this one OS process, all on one gocql session;
// each cell on ids of its own.
type realWorld struct {
	session  *gocql.Session
	store    lockstep.Store
	keyspace string
	tag      string
	cell     int
	poll     time.Duration
}

func (w *realWorld) lockers(a algorithm, n int) ([]groupLocker, error) {
	out := make([]groupLocker, n)
	for i := range out {
		process := fmt.Sprintf("%s-mgr%d-%s-c%d", w.tag, w.cell, a, i)
		if isLWT(a) {
			out[i] = lwtGroup{newLWTLocker(a, w.session, w.keyspace, process, w.poll)}
			continue
		}
		l, err := newManagerLocker(a, lockerParams{store: w.store, process: process, poll: w.poll})
		if err != nil {
			return nil, err
		}
		out[i] = l
	}
	return out, nil
}

func (w *realWorld) clock() lockstep.Clock { return &clock.Local{} }
func (w *realWorld) run(work func())       { work() }
func (w *realWorld) prefix() string        { return fmt.Sprintf("mgr-%s-%d", w.tag, w.cell) }
