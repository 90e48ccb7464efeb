package combined_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	combinedlock "github.com/lockstep-go/lockstep/combined"
	"github.com/lockstep-go/lockstep/model"
)

type dcLocal struct{ lockstep.Store }

func (dcLocal) Scope() lockstep.Scope { return lockstep.LocalTo("dc1") }

func TestNew_RefusesADCLocalStore(t *testing.T) {
	_, err := combinedlock.New(dcLocal{model.New(&clock.Local{})}, nil)
	var se *lockstep.ScopeError
	if !errors.As(err, &se) || !errors.Is(err, lockstep.ErrInvalidConfig) || !strings.Contains(err.Error(), "global store") {
		t.Fatalf("got %v, want a ScopeError saying to use a global store", err)
	}
}
