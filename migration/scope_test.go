package migration_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

type dcLocal struct{ lockstep.Store }

func (dcLocal) Scope() lockstep.Scope { return lockstep.LocalTo("dc1") }

func TestNew_ControllerAndPhaseFlagRefuseADCLocalStore(t *testing.T) {
	s := dcLocal{model.New(&clock.Local{})}
	_, err1 := migration.New(s, migration.Static(lockstep.ModeNew), nil)
	_, err2 := migration.NewController(s, nil)
	_, err3 := migration.NewPhaseFlag(s, nil)
	for _, err := range []error{err1, err2, err3} {
		var se *lockstep.ScopeError
		if !errors.As(err, &se) || !errors.Is(err, lockstep.ErrInvalidConfig) || !strings.Contains(err.Error(), "fleet") {
			t.Fatalf("got %v, want a ScopeError saying the census and phase are fleet-wide", err)
		}
	}
}
