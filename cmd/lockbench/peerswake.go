package main

import (
	"crypto/rand"
	"fmt"

	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/wakeup"
)

// The peers scenario's new-wake contender: the queue lock with wake-ups on
// release, each worker process listening on a UDP port of its own on
// loopback, every worker of a run sharing one key the parent draws.

// newWakeKey draws a run's wake-up key.
func newWakeKey() ([]byte, error) {
	k := make([]byte, wakeup.MinKeyBytes)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	return k, nil
}

// newWakeContender builds job's new-wake contender: a UDP socket, a
// session, a queue locker with Wake. Close closes all three.
func newWakeContender(job workerJob) (contender, error) {
	if len(job.WakeKey) == 0 {
		return nil, fmt.Errorf("%s job without a wake key", job.Algorithm)
	}
	udp, err := wakeup.ListenUDP("127.0.0.1:0", "")
	if err != nil {
		return nil, err
	}
	s, err := connect(job.Hosts)
	if err != nil {
		udp.Close()
		return nil, err
	}
	store, err := newCassandraStore(s, job.Keyspace)
	if err != nil {
		s.Close()
		udp.Close()
		return nil, err
	}
	c, err := newLockstepContender(job.Algorithm, lockerParams{store: store, process: job.Process, poll: job.Poll, slow: job.SlowPoll,
		wake: &queuelock.Wake{Transport: udp, Key: job.WakeKey}})
	if err != nil {
		s.Close()
		udp.Close()
		return nil, err
	}
	return sessionContender{contender: c, close: func() { s.Close(); _ = udp.Close() }}, nil
}

// wakeCloser keeps contend's interfaces visible through sessionContender.
var _ readCounter = sessionContender{}
