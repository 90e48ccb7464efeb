package election_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/election"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

type dcLocal struct{ lockstep.Store }

func (dcLocal) Scope() lockstep.Scope { return lockstep.LocalTo("dc1") }

func TestNew_RefusesAStoreOfAnotherScopeThanTheLockers(t *testing.T) {
	shared := model.New(&clock.Local{})
	lk, err := queuelock.New(dcLocal{shared}, &queuelock.Options{Fencing: nil})
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Close(t.Context())
	if _, err := election.New(lk, shared, "leader", nil); !errors.Is(err, lockstep.ErrInvalidConfig) || !strings.Contains(err.Error(), "pass the store the Locker runs on") {
		t.Fatalf("got %v, want ErrInvalidConfig", err)
	}
	if _, err := election.New(lk, dcLocal{shared}, "leader", nil); err != nil {
		t.Fatal(err)
	}
}
