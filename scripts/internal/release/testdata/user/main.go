// The program a new user writes after go get of the library, lockd and the
// Prometheus adapter at a released version (scripts/release-check runs it in
// a module of its own, outside the repository): a lock on the embedded model
// through the library, the same through lockd and its Go client, and the
// adapter's count of both.
package main

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"

	lockprom "github.com/lockstep-go/lockstep/adapters/prometheus"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/lockd"
	"github.com/lockstep-go/lockstep/lockd/client"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	obs, err := lockprom.New(nil)
	check(err)
	reg := prom.NewRegistry()
	reg.MustRegister(obs)

	store := model.New(&clock.Local{}) // the embedded Cassandra model
	locker, err := queuelock.New(store, &queuelock.Options{ProcessID: "release-check", Observer: obs})
	check(err)
	l, err := locker.Lock(ctx, "invoice/42")
	check(err)
	fmt.Println("library: holds invoice/42 in mode", l.Mode())
	check(l.Unlock(context.WithoutCancel(ctx)))

	srv, err := lockd.New(locker, nil)
	check(err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	hs := &http.Server{Handler: srv.Handler()}
	go func() { _ = hs.Serve(ln) }()
	s, err := client.Open(ctx, "http://"+ln.Addr().String(), nil)
	check(err)
	cl, err := s.Lock(ctx, "invoice/43")
	check(err)
	fmt.Println("lockd/client: holds invoice/43 through lockd")
	check(cl.Unlock(context.WithoutCancel(ctx)))
	check(s.Close(ctx))
	check(srv.Close(ctx))
	check(hs.Shutdown(ctx))
	check(locker.Close(ctx))

	mfs, err := reg.Gather()
	check(err)
	for _, mf := range mfs {
		if mf.GetName() == "lockstep_acquisitions_total" {
			n := 0.0
			for _, m := range mf.GetMetric() {
				n += m.GetCounter().GetValue()
			}
			fmt.Println("adapters/prometheus: lockstep_acquisitions_total", n)
		}
	}
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
