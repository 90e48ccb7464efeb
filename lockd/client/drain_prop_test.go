package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/lockstep-go/lockstep/lockd"
	"github.com/lockstep-go/lockstep/migration"
)

// drainRuns runs the fail-over property with graceful shutdowns among its
// steps, on three lockds with the planted defects knobs (nil for none) and
// mig's local handoff, retention and library defects (serveLockdWith; nil
// for none), until a run fails or rapid's checks are done; it returns the
// first failure. A lockd shut down in a run is replaced by a fresh one of
// the cluster (on the same store, with the same peer key) before the next.
func drainRuns(t *testing.T, knobs *lockd.TestingKnobs, mig *migration.Options, stopAtFirst bool) error {
	store := newStore(t)
	// A session its client left during a cut stays until its TTL (2s)
	// and keeps a drain waiting that long: a 1s drain bounds the wait and
	// is still some 15 times the slowest move the robustness suite saw.
	opts := lockd.Options{PeerKey: peerKey, Drain: time.Second, TestingKnobs: knobs}
	srvs := make([]*server, 3)
	for i := range srvs {
		srvs[i] = serveLockdWith(t, store, "lockd-"+string(rune('a'+i)), opts, mig)
	}
	var failed error
	rapid.Check(t, func(rt *rapid.T) {
		if failed != nil && stopAtFirst {
			return
		}
		shut := -1
		err := failoverRun(rt, srvs, nil, func(i int) error {
			shut = i
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := srvs[i].srv.Close(ctx)
			srvs[i].drop()
			return err
		})
		if shut >= 0 {
			srvs[shut] = serveLockdWith(t, store, "lockd-"+string(rune('a'+shut))+"-again", opts, mig)
		}
		if err != nil {
			if failed == nil {
				failed = err
			}
			if !stopAtFirst {
				rt.Fatal(err)
			}
		}
	})
	return failed
}

// Property: the fail-over property holds across graceful shutdowns too:
// a session at a lockd that drains moves to another with every lock
// (docs/algorithms.md §8.8, "Draining"), none is lost.
func TestDrain_Property(t *testing.T) {
	require.NoError(t, drainRuns(t, nil, nil, false))
}

// The drain property over lockds with local handoff and retention
// (lockd's --local-handoff 8 --retain 20ms): the locks a draining lockd's
// sessions shared move with them as without.
func TestDrain_PropertyWithLocalHandoff(t *testing.T) {
	require.NoError(t, drainRuns(t, nil, withLocalHandoff(nil), false))
}

// The planted control EndDrainedAtOnce (a shutdown that ends every session
// at once, as a lockd without the drain did) is caught by the same
// property: the locks of a session that could have moved are lost.
func TestDrain_PropertyCatchesEndDrainedAtOnce(t *testing.T) {
	err := drainRuns(t, &lockd.TestingKnobs{EndDrainedAtOnce: true}, nil, true)
	require.Error(t, err, "the property missed the planted control")
	t.Logf("caught: %v", err)
}
