package queue

import (
	"context"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/locktest"
	"github.com/lockstep-go/lockstep/model"
)

// The bytes a Locker writes are a storage format that running fleets share:
// they must not change when the code that builds them moves. This pins every
// write of an uncontended fast-path Lock/Unlock, a slow-path Lock/Unlock and
// a TryLock, each held past one renewal, on synctest's fixed clock
// (2000-01-01T00:00:00Z) with a seeded incarnation: the same cells, to the
// byte, as the code wrote before the formats moved to internal/layout. The
// first renewal writes the owner cell alone and deletes the queue cell
// (docs/algorithms.md, section 4.13); this recording store is not a
// lockstep.Mutator, so that is a Put and a Delete, where Cassandra's stores
// send one request.
func TestQueueLock_WritesTheKnownBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		rec := &locktest.Recording{Store: model.New(&clock.Local{})}
		opts := func(process string, noFast bool) *Options {
			return &Options{TTL: ttl, Renew: time.Second, Poll: 10 * time.Millisecond, ProcessID: process,
				Rand: rand.New(rand.NewPCG(1, 2)), NoFastPath: noFast}
		}
		fast, err := New(rec, opts("p1", false))
		if err != nil {
			t.Fatal(err)
		}
		slow, err := New(rec, opts("p2", true))
		if err != nil {
			t.Fatal(err)
		}
		locktest.HoldOnce(t, fast, "invoice/42", false, 1500*time.Millisecond) // one renewal (Renew 1s)
		locktest.HoldOnce(t, slow, "invoice/42", false, 1500*time.Millisecond)
		locktest.HoldOnce(t, fast, "invoice/42", true, 1500*time.Millisecond)
		_ = fast.Close(ctx)
		_ = slow.Close(ctx)
		rec.Expect(t, []string{
			`put queue_lock/invoice/42 "00000946684800000000/q/p1.1"=70312e31 ts=946684800000000 ttl=6s`,
			`put queue_lock/invoice/42 "~o/p1/c4f5a58656eef510"=70312e31 ts=946684800000001 ttl=6s`,
			`put queue_lock/invoice/42 "~o/p1/c4f5a58656eef510"=70312e31 ts=946684801000001 ttl=6s`,
			`delete queue_lock/invoice/42 ["00000946684800000000/q/p1.1"] ts=946684801000000`,
			`delete queue_lock/invoice/42 ["00000946684800000000/q/p1.1" "~o/p1/c4f5a58656eef510"] ts=946684801500000`,
			`put queue_lock/invoice/42 "00000946684801500000/q/p2.1"=70322e31 ts=946684801500000 ttl=6s`,
			`put queue_lock/invoice/42 "00000946684801500000/q/p2.1"=70322e31 ts=946684801500001 ttl=6s`,
			`put queue_lock/invoice/42 "~o/p2/c4f5a58656eef510"=70322e31 ts=946684801500002 ttl=6s`,
			`put queue_lock/invoice/42 "~~floor"=00035d013b472240 ts=946684801000000 ttl=13s`,
			`put queue_lock/invoice/42 "~o/p2/c4f5a58656eef510"=70322e31 ts=946684802500001 ttl=6s`,
			`delete queue_lock/invoice/42 ["00000946684801500000/q/p2.1"] ts=946684802500000`,
			`delete queue_lock/invoice/42 ["00000946684801500000/q/p2.1" "~o/p2/c4f5a58656eef510"] ts=946684803000000`,
			`put queue_lock/invoice/42 "00000946684803000000/q/p1.2"=70312e32 ts=946684803000000 ttl=6s`,
			`put queue_lock/invoice/42 "00000946684803000000/q/p1.2"=70312e32 ts=946684803000001 ttl=6s`,
			`put queue_lock/invoice/42 "~o/p1/c4f5a58656eef510"=70312e32 ts=946684803000002 ttl=6s`,
			`put queue_lock/invoice/42 "~~floor"=00035d013b5e05a0 ts=946684802500000 ttl=13s`,
			`put queue_lock/invoice/42 "~o/p1/c4f5a58656eef510"=70312e32 ts=946684804000001 ttl=6s`,
			`delete queue_lock/invoice/42 ["00000946684803000000/q/p1.2"] ts=946684804000000`,
			`delete queue_lock/invoice/42 ["00000946684803000000/q/p1.2" "~o/p1/c4f5a58656eef510"] ts=946684804500000`,
		})
	})
}
