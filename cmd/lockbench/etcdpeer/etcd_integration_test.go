//go:build integration

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lockstep-go/lockstep/cmd/lockbench/peer"
)

// These tests run against the etcd in LOCKBENCH_ETCD, for example:
//
//	LOCKSTEP_ETCD_DIR=/tmp/etcd-test LOCKSTEP_ETCD_CLIENT_PORT=24479 LOCKSTEP_ETCD_PEER_PORT=24480 scripts/etcd up
//	cd cmd/lockbench/etcdpeer # a module of its own
//	LOCKBENCH_ETCD=127.0.0.1:24479 go test -tags integration .
//
// With the integration tag and no LOCKBENCH_ETCD they fail rather than skip.
// They read the server's gauge of unsynced watchers, so they want an etcd of
// their own.

func etcdEndpoints(t *testing.T) []string {
	t.Helper()
	e := strings.TrimSpace(os.Getenv("LOCKBENCH_ETCD"))
	if e == "" {
		t.Fatal("LOCKBENCH_ETCD is empty: the integration tag needs a running etcd (scripts/etcd up)")
	}
	return strings.Split(e, ",")
}

// newTestLocker opens a locker (its own client and session) closed at the
// end of the test.
func newTestLocker(t *testing.T, process string) *etcdLocker {
	t.Helper()
	l, err := newEtcdLocker(etcdEndpoints(t), process)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// handoffDelays runs rounds handoffs of one id between two contenders of the
// algorithm newContender builds: a takes the lock, b queues behind it, and once b's
// watch is open (the server's watcher count has risen) a releases; each
// delay is from a's Unlock call to b's Lock returning.
func handoffDelays(t *testing.T, newContender func(*etcdLocker) peer.Contender, rounds int) []time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, b := newContender(newTestLocker(t, "a")), newContender(newTestLocker(t, "b"))
	metrics := "http://" + etcdEndpoints(t)[0] + "/metrics"
	id := fmt.Sprintf("test/handoff/%d", time.Now().UnixNano())
	var delays []time.Duration
	for range rounds {
		ha, err := a.Lock(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		before, err := watchers(ctx, metrics)
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan error, 1)
		var hb peer.Unlocker
		go func() {
			var err error
			hb, err = b.Lock(ctx, id)
			got <- err
		}()
		for n := before; n <= before; {
			if n, err = watchers(ctx, metrics); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-got:
				t.Fatalf("b's Lock returned while a held the lock: %v", err)
			default:
			}
		}
		start := time.Now()
		if err := ha.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-got; err != nil {
			t.Fatal(err)
		}
		delays = append(delays, time.Since(start))
		if err := hb.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(delays)
	return delays
}

// watchers reads the server's gauge of watchers (synced or not).
func watchers(ctx context.Context, url string) (int, error) {
	return gauge(ctx, url, "etcd_debugging_mvcc_watcher_total")
}

// The handoff bound: well above a loopback watch event, well below the
// unsynced-watcher loop's 100 ms period.
const handoffBound = 30 * time.Millisecond

func TestEtcdNextRev_HandsOverWithoutWaitingForTheUnsyncedWatcherLoop(t *testing.T) {
	d := handoffDelays(t, func(l *etcdLocker) peer.Contender { return etcdNextRev{l} }, 20)
	if p50 := d[len(d)/2]; p50 > handoffBound {
		t.Errorf("handoff p50 %v, want at most %v (all: %v)", p50, handoffBound, d)
	}
}

// The control: etcd's Mutex, whose waiter watches from the read's own
// revision, fails the same bound, so the bound tells the two apart.
func TestEtcdMutex_HandoffWaitsForTheUnsyncedWatcherLoop(t *testing.T) {
	d := handoffDelays(t, func(l *etcdLocker) peer.Contender { return l }, 10)
	if p50 := d[len(d)/2]; p50 <= handoffBound {
		t.Errorf("the Mutex's handoff p50 %v is within %v: the check cannot tell the fixed watch from the Mutex's (all: %v)", p50, handoffBound, d)
	}
}

func TestEtcdNextRev_ExcludesEtcdsMutexOnTheSameName(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	mutex, fixed := newTestLocker(t, "mutex"), etcdNextRev{newTestLocker(t, "fixed")}
	id := fmt.Sprintf("test/exclusion/%d", time.Now().UnixNano())
	h, err := mutex.Lock(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancelShort()
	if _, err := fixed.Lock(short, id); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("etcd-nextrev's Lock while the Mutex held the name: %v, want the deadline", err)
	}
	if err := h.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	hf, err := fixed.Lock(ctx, id)
	if err != nil {
		t.Fatalf("etcd-nextrev's Lock after the Mutex's release: %v", err)
	}
	if err := hf.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestEtcdNextRev_CancelledWaiterLeavesNoQueueKey(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, b := etcdNextRev{newTestLocker(t, "a")}, etcdNextRev{newTestLocker(t, "b")}
	id := fmt.Sprintf("test/cancel/%d", time.Now().UnixNano())
	h, err := a.Lock(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	short, cancelShort := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancelShort()
	if _, err := b.Lock(short, id); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("b's Lock behind a's: %v, want the deadline", err)
	}
	resp, err := a.client.Get(ctx, etcdPrefix+id+"/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Count != 1 {
		t.Errorf("%d queue keys after b gave up, want a's alone", resp.Count)
	}
	if err := h.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}
