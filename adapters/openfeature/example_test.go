package openfeature_test

import (
	"context"
	"fmt"
	"log"

	of "github.com/open-feature/go-sdk/openfeature"
	"github.com/open-feature/go-sdk/openfeature/memprovider"

	"github.com/lockstep-go/lockstep"
	lockof "github.com/lockstep-go/lockstep/adapters/openfeature"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

// A service whose flags live behind OpenFeature hands a Flag to its
// migration.Locker; flipping the flag in the flag service moves the next
// acquisitions to the new mode. The in-memory provider stands in for the
// service's real provider and the embedded model for Cassandra.
func Example() {
	ctx := context.Background()
	variants := map[string]any{"legacy": "legacy", "combined": "combined", "new": "new"}
	provider := memprovider.NewInMemoryProvider(map[string]memprovider.InMemoryFlag{
		"lockstep-mode": {Key: "lockstep-mode", State: memprovider.Enabled, DefaultVariant: "legacy", Variants: variants},
	})
	if err := of.SetProviderAndWait(provider); err != nil {
		log.Fatal(err)
	}
	defer of.Shutdown()
	flag, err := lockof.New(of.NewDefaultClient(), &lockof.Options{Key: "lockstep-mode"})
	if err != nil {
		log.Fatal(err)
	}

	store := model.New(&clock.Local{}) // cassandra.NewStore(session) in production
	locker, err := migration.New(store, flag, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer locker.Close(ctx)
	lockOnce := func() {
		l, err := locker.Lock(ctx, "invoice/42")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("locked in mode", l.Mode())
		if err := l.Unlock(ctx); err != nil {
			log.Fatal(err)
		}
	}
	lockOnce()

	// The operator moves the phase to combined (lockctl, or a Controller),
	// then flips the flag.
	ctl, err := migration.NewController(store, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := ctl.Set(ctx, lockstep.ModeCombined); err != nil {
		log.Fatal(err)
	}
	provider.UpdateFlags(map[string]memprovider.InMemoryFlag{
		"lockstep-mode": {Key: "lockstep-mode", State: memprovider.Enabled, DefaultVariant: "combined", Variants: variants},
	})
	lockOnce()
	// Output:
	// locked in mode legacy
	// locked in mode combined
}
