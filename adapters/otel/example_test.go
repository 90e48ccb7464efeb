package otel_test

import (
	"context"
	"fmt"
	"log"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/lockstep-go/lockstep"
	lockotel "github.com/lockstep-go/lockstep/adapters/otel"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

// A service builds one Observer on its MeterProvider and hands it to its
// migration.Locker. Here a ManualReader stands in for the exporter and the
// embedded model for Cassandra.
func Example() {
	ctx := context.Background()
	reader := sdkmetric.NewManualReader() // a periodic OTLP reader in production
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(ctx)

	obs, err := lockotel.New(mp, nil)
	if err != nil {
		log.Fatal(err)
	}
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

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		log.Fatal(err)
	}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if s, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "lockstep.acquisitions" {
			for _, p := range s.DataPoints {
				fmt.Println(m.Name, m.Unit, p.Attributes.Encoded(attribute.DefaultEncoder()), p.Value)
			}
		}
	}
	// Output:
	// lockstep.acquisitions {acquisition} lockstep.acquire.call=lock,lockstep.acquire.result=acquired,lockstep.mode=legacy 1
}
