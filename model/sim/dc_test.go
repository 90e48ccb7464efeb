package sim_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra/cqlstore"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/model/sim"
)

func TestScopedStore_RefusesLevelsThatCannotKeepTheScopeUnlessPlanted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := sim.Config{Cluster: model.ClusterConfig{Replicas: 3, DCs: []int{0, 0, 1}}}
		s := sim.New(cfg)
		p := s.AddProcessAt("p", 2)
		if p.DC() != 1 {
			t.Fatalf("dc %d", p.DC())
		}
		if _, err := p.ScopedStore(lockstep.Scope{}, model.LocalQuorum, model.LocalQuorum); !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Fatalf("global at LOCAL_QUORUM: %v", err)
		}
		st, err := p.ScopedStore(lockstep.LocalTo("dc2"), model.LocalQuorum, model.LocalQuorum)
		if err != nil || lockstep.ScopeOf(st) != lockstep.LocalTo("dc2") {
			t.Fatalf("DC-local: %v, %v", err, st)
		}
		s.Close()
		cfg.TestingKnobs = &sim.TestingKnobs{AcceptAnyLevels: true}
		planted := sim.New(cfg)
		if _, err := planted.AddProcessAt("q", 0).ScopedStore(lockstep.Scope{}, model.LocalQuorum, model.LocalQuorum); err != nil {
			t.Fatalf("planted: %v", err)
		}
		planted.Close()
	})
}

// misrouted runs one write and one read of a process of dc1 (replica 0)
// whose requests are misrouted to replica 2 (dc2), on a store of scope at
// LOCAL_QUORUM, and returns their errors.
func misrouted(t *testing.T, knobs *sim.TestingKnobs, scope lockstep.Scope) (werr, rerr error) {
	synctest.Test(t, func(t *testing.T) {
		s := sim.New(sim.Config{Cluster: model.ClusterConfig{Replicas: 3, DCs: []int{0, 0, 1}}, TestingKnobs: knobs})
		p := s.AddProcessAt("p", 0)
		write := model.LocalQuorum
		if scope.IsGlobal() {
			write = model.EachQuorum
		}
		st, err := p.ScopedStore(scope, model.LocalQuorum, write)
		if err != nil {
			t.Fatal(err)
		}
		s.Misroute(p, 2)
		if c, ok := p.Misrouted(); !ok || c != 2 {
			t.Fatalf("misrouted to %d, %v", c, ok)
		}
		p.Go(func(ctx context.Context) {
			werr = st.Put(ctx, "t", "r", lockstep.Cell{Column: "c", Value: []byte("v"), Timestamp: 1})
			_, rerr = st.Read(ctx, "t", "r", lockstep.Slice{})
		})
		for s.Step(zeroChooser{}) {
		}
		s.Reroute(p)
		if _, ok := p.Misrouted(); ok {
			t.Fatal("still misrouted after Reroute")
		}
		s.Close()
	})
	return werr, rerr
}

type zeroChooser struct{}

func (zeroChooser) Choose(string, int) int { return 0 }

func TestMisroute_DCLocalStoreRefusesAnswersOfAnotherDataCentreUnlessPlanted(t *testing.T) {
	werr, rerr := misrouted(t, nil, lockstep.LocalTo("dc1"))
	var remote *cqlstore.RemoteCoordinatorError
	if !errors.As(werr, &remote) || remote.HostDC != "dc2" || remote.DC != "dc1" ||
		!errors.Is(werr, lockstep.ErrUnknownOutcome) || !errors.Is(werr, lockstep.ErrRefused) {
		t.Fatalf("write: %v", werr)
	}
	if !errors.As(rerr, &remote) || !errors.Is(rerr, lockstep.ErrRefused) || errors.Is(rerr, lockstep.ErrUnknownOutcome) {
		t.Fatalf("read: %v", rerr)
	}
	if werr, rerr := misrouted(t, nil, lockstep.Scope{}); werr != nil || rerr != nil {
		t.Fatalf("global store: %v, %v", werr, rerr)
	}
	if werr, rerr := misrouted(t, &sim.TestingKnobs{AcceptRemoteCoordinator: true}, lockstep.LocalTo("dc1")); werr != nil || rerr != nil {
		t.Fatalf("planted: %v, %v", werr, rerr)
	}
}
