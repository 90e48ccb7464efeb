package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// The watch-delay probe (etcdpeer -watch-delay ENDPOINTS) times how long a
// watcher waiting for a key's deletion takes to see it, for the two start
// revisions a waiter can give its watch after reading the key at revision
// rev (the read's header revision):
//
//	rev     what concurrency.Mutex does (waitDelete in etcd's
//	        concurrency/key.go): the watch starts at the current revision,
//	        which the server counts as a past one
//	rev+1   the next revision: the first one the key's deletion can have
//
// etcd's watchable store (mvcc/watchable_store.go) puts a watcher whose start
// revision is at or below its current revision among the unsynced ones,
// which a loop catches up every 100 ms; a watcher starting above it is
// synced and gets each event as the write commits. Each round puts a key,
// reads it, opens both watches (waiting for the server to confirm each),
// deletes the key and times, from calling Delete, the arrival of each
// watch's DELETE event. After opening each watch it reads the server's
// gauge of unsynced watchers (etcd_debugging_mvcc_slow_watcher_total on the
// first endpoint's /metrics) and counts the watches that raised it.

// watchDelayRounds is how many deletions the probe times by default.
const watchDelayRounds = 50

// watchDelays are the probe's timings, one per round for each start
// revision.
type watchDelays struct {
	atRev, atNext []time.Duration
	// unsyncedRev and unsyncedNext count the watches the server counted
	// as unsynced when they were created.
	unsyncedRev, unsyncedNext int
}

// probeWatchDelay runs rounds rounds against etcd at endpoints, under keys
// below prefix.
func probeWatchDelay(ctx context.Context, endpoints []string, prefix string, rounds int) (watchDelays, error) {
	c, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return watchDelays{}, fmt.Errorf("etcd client for %v: %w", endpoints, err)
	}
	defer c.Close()
	var d watchDelays
	metrics := "http://" + endpoints[0] + "/metrics"
	for i := range rounds {
		key := fmt.Sprintf("%s%d", prefix, i)
		r, err := timeOneDelete(ctx, c, key, func() (int, error) { return gauge(ctx, metrics, slowWatcherGauge) })
		if err != nil {
			return watchDelays{}, fmt.Errorf("round %d: %w", i, err)
		}
		d.atRev, d.atNext = append(d.atRev, r.atRev), append(d.atNext, r.atNext)
		d.unsyncedRev += r.unsyncedRev
		d.unsyncedNext += r.unsyncedNext
	}
	return d, nil
}

// timeOneDelete puts key, reads it, watches it from the read's revision and
// from the next, deletes it and returns how long each watch took to report
// the deletion, and which watches raised unsynced (the server's count of
// unsynced watchers) when they were opened.
func timeOneDelete(ctx context.Context, c *clientv3.Client, key string, unsynced func() (int, error)) (r watchDelay, err error) {
	if _, err := c.Put(ctx, key, ""); err != nil {
		return r, err
	}
	g, err := c.Get(ctx, key)
	if err != nil {
		return r, err
	}
	rev := g.Header.Revision
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n0, err := unsynced()
	if err != nil {
		return r, err
	}
	wRev, err := openWatch(wctx, c, key, rev)
	if err != nil {
		return r, err
	}
	n1, err := unsynced()
	if err != nil {
		return r, err
	}
	wNext, err := openWatch(wctx, c, key, rev+1)
	if err != nil {
		return r, err
	}
	n2, err := unsynced()
	if err != nil {
		return r, err
	}
	r.unsyncedRev, r.unsyncedNext = max(0, n1-n0), max(0, n2-n1)
	start := time.Now()
	if _, err := c.Delete(ctx, key); err != nil {
		return r, err
	}
	type arrival struct {
		next bool
		d    time.Duration
		err  error
	}
	done := make(chan arrival, 2)
	for _, w := range []struct {
		ch   clientv3.WatchChan
		next bool
	}{{wRev, false}, {wNext, true}} {
		go func() {
			err := awaitDelete(w.ch)
			done <- arrival{w.next, time.Since(start), err}
		}()
	}
	for range 2 {
		a := <-done
		if a.err != nil {
			return r, a.err
		}
		if a.next {
			r.atNext = a.d
		} else {
			r.atRev = a.d
		}
	}
	return r, nil
}

// watchDelay is one round of the probe.
type watchDelay struct {
	atRev, atNext             time.Duration
	unsyncedRev, unsyncedNext int
}

// slowWatcherGauge is etcd's gauge of unsynced watchers.
const slowWatcherGauge = "etcd_debugging_mvcc_slow_watcher_total"

// gauge reads the gauge name from etcd's metrics at url.
func gauge(ctx context.Context, url, name string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("etcd metrics: %w", err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return int(f), err
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("etcd metrics: %w", err)
	}
	return 0, fmt.Errorf("etcd metrics at %s carry no %s", url, name)
}

// openWatch watches key from revision from and returns once the server has
// created the watcher.
func openWatch(ctx context.Context, c *clientv3.Client, key string, from int64) (clientv3.WatchChan, error) {
	ch := c.Watch(ctx, key, clientv3.WithRev(from), clientv3.WithCreatedNotify())
	wr, ok := <-ch
	if !ok || !wr.Created {
		return nil, fmt.Errorf("watch of %q from revision %d not created (%v)", key, from, wr.Err())
	}
	return ch, nil
}

// awaitDelete returns when ch delivers a DELETE event.
func awaitDelete(ch clientv3.WatchChan) error {
	for wr := range ch {
		if err := wr.Err(); err != nil {
			return err
		}
		for _, ev := range wr.Events {
			if ev.Type == mvccpb.Event_DELETE {
				return nil
			}
		}
	}
	return fmt.Errorf("watch closed before the deletion")
}

// printWatchDelays prints the probe's distribution for each start revision.
func printWatchDelays(w io.Writer, d watchDelays) {
	fmt.Fprintf(w, "watch start   deletions   unsynced   min      p50      p90      max      (ms, from calling Delete to the watch's DELETE event)\n")
	for _, row := range []struct {
		name     string
		ds       []time.Duration
		unsynced int
	}{{"rev", d.atRev, d.unsyncedRev}, {"rev+1", d.atNext, d.unsyncedNext}} {
		ds := slices.Clone(row.ds)
		slices.Sort(ds)
		if len(ds) == 0 {
			continue
		}
		q := func(p int) string {
			return fmt.Sprintf("%.2f", float64(ds[(len(ds)-1)*p/100])/float64(time.Millisecond))
		}
		fmt.Fprintf(w, "%-13s %9d   %8d   %-8s %-8s %-8s %-8s\n", row.name, len(ds), row.unsynced, q(0), q(50), q(90), q(100))
	}
	fmt.Fprintf(w, "unsynced: watches that raised the server's %s when opened.\n", slowWatcherGauge)
}
