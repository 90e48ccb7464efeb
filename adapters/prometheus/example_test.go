package prometheus_test

import (
	"context"
	"fmt"
	"log"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/lockstep-go/lockstep"
	lockprom "github.com/lockstep-go/lockstep/adapters/prometheus"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

// A service registers one Observer and hands it to its migration.Locker;
// every acquisition, release and renewal then shows in its metrics. The
// embedded model stands in for Cassandra here.
func Example() {
	ctx := context.Background()
	obs, err := lockprom.New(&lockprom.Options{ConstLabels: prom.Labels{"service": "billing"}})
	if err != nil {
		log.Fatal(err)
	}
	reg := prom.NewRegistry() // or prometheus.DefaultRegisterer
	reg.MustRegister(obs)

	store := model.New(&clock.Local{}) // cassandra.NewStore(session) in production
	locker, err := migration.New(store, migration.Static(lockstep.ModeLegacy), &migration.Options{Observer: obs})
	if err != nil {
		log.Fatal(err)
	}
	defer locker.Close(ctx)

	l, err := locker.Lock(ctx, "invoice/42")
	if err != nil {
		log.Fatal(err)
	}
	if err := l.Unlock(ctx); err != nil {
		log.Fatal(err)
	}

	mfs, err := reg.Gather()
	if err != nil {
		log.Fatal(err)
	}
	for _, mf := range mfs {
		switch mf.GetName() {
		case "lockstep_acquisitions_total", "lockstep_releases_total":
			for _, m := range mf.GetMetric() {
				fmt.Print(mf.GetName(), "{")
				for i, lp := range m.GetLabel() {
					if i > 0 {
						fmt.Print(",")
					}
					fmt.Printf("%s=%q", lp.GetName(), lp.GetValue())
				}
				fmt.Println("}", m.GetCounter().GetValue())
			}
		}
	}
	// Output:
	// lockstep_acquisitions_total{call="lock",mode="legacy",result="acquired",service="billing"} 1
	// lockstep_releases_total{mode="legacy",result="released",service="billing"} 1
}
