package sim_test

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/lockstep-go/lockstep"
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
