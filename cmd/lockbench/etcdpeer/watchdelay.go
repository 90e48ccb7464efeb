package main

import (
	"context"
	"fmt"
	"io"
	"slices"
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
// watch's DELETE event.

// watchDelayRounds is how many deletions the probe times by default.
const watchDelayRounds = 50

// watchDelays are the probe's timings, one per round for each start
// revision.
type watchDelays struct{ atRev, atNext []time.Duration }

// probeWatchDelay runs rounds rounds against etcd at endpoints, under keys
// below prefix.
func probeWatchDelay(ctx context.Context, endpoints []string, prefix string, rounds int) (watchDelays, error) {
	c, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return watchDelays{}, fmt.Errorf("etcd client for %v: %w", endpoints, err)
	}
	defer c.Close()
	var d watchDelays
	for i := range rounds {
		key := fmt.Sprintf("%s%d", prefix, i)
		atRev, atNext, err := timeOneDelete(ctx, c, key)
		if err != nil {
			return watchDelays{}, fmt.Errorf("round %d: %w", i, err)
		}
		d.atRev, d.atNext = append(d.atRev, atRev), append(d.atNext, atNext)
	}
	return d, nil
}

// timeOneDelete puts key, reads it, watches it from the read's revision and
// from the next, deletes it and returns how long each watch took to report
// the deletion.
func timeOneDelete(ctx context.Context, c *clientv3.Client, key string) (atRev, atNext time.Duration, err error) {
	if _, err := c.Put(ctx, key, ""); err != nil {
		return 0, 0, err
	}
	g, err := c.Get(ctx, key)
	if err != nil {
		return 0, 0, err
	}
	rev := g.Header.Revision
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wRev, err := openWatch(wctx, c, key, rev)
	if err != nil {
		return 0, 0, err
	}
	wNext, err := openWatch(wctx, c, key, rev+1)
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	if _, err := c.Delete(ctx, key); err != nil {
		return 0, 0, err
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
			return 0, 0, a.err
		}
		if a.next {
			atNext = a.d
		} else {
			atRev = a.d
		}
	}
	return atRev, atNext, nil
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
	fmt.Fprintf(w, "watch start   deletions   min      p50      p90      max      (ms, from calling Delete to the watch's DELETE event)\n")
	for _, row := range []struct {
		name string
		ds   []time.Duration
	}{{"rev", d.atRev}, {"rev+1", d.atNext}} {
		ds := slices.Clone(row.ds)
		slices.Sort(ds)
		if len(ds) == 0 {
			continue
		}
		q := func(p int) string {
			return fmt.Sprintf("%.2f", float64(ds[(len(ds)-1)*p/100])/float64(time.Millisecond))
		}
		fmt.Fprintf(w, "%-13s %9d   %-8s %-8s %-8s %-8s\n", row.name, len(ds), q(0), q(50), q(90), q(100))
	}
}
