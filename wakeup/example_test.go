package wakeup_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/inspect"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/wakeup"
)

// Queue Lockers with wake-ups on, each with a UDP socket of its own and the
// fleet's one key. A releaser wakes the waiter that was next in line when
// its own claim read the queue, so a wake-up needs a waiter queued before
// the holder's claim: under contention, every handoff. Here b and c wait
// behind a; b gets the lock by polling (a's claim saw nobody), and b's claim
// saw c, so b's release wakes c at once, long before c's next read (every
// Poll/4 = 1 s next in line).
func Example() {
	ctx := context.Background()
	store := model.New(&clock.Local{}) // production: cassandra.New(session, "locks")
	key := make([]byte, wakeup.MinKeyBytes)
	_, _ = rand.Read(key)

	var sockets []*wakeup.UDP
	defer func() { // after the Lockers' Close, deferred below
		for _, u := range sockets {
			_ = u.Close()
		}
	}()
	newLocker := func(process string) *queuelock.Locker {
		udp, err := wakeup.ListenUDP("127.0.0.1:0", "")
		if err != nil {
			panic(err)
		}
		l, err := queuelock.New(store, &queuelock.Options{ProcessID: process, Poll: 4 * time.Second, SlowPoll: 8 * time.Second,
			Wake: &queuelock.Wake{Transport: udp, Key: key}})
		if err != nil {
			panic(err)
		}
		sockets = append(sockets, udp)
		return l
	}
	a, b, c := newLocker("a"), newLocker("b"), newLocker("c")
	defer a.Close(ctx)
	defer b.Close(ctx)
	defer c.Close(ctx)

	held, err := a.Lock(ctx, "invoice/42")
	if err != nil {
		panic(err)
	}
	inLine := func(n int) { // waits until n acquisitions wait behind a
		for {
			lc, err := inspect.Read(ctx, store, inspect.Tables{}, "invoice/42", false)
			if err != nil {
				panic(err)
			}
			if len(lc.Waiting()) >= n {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	releasedByB := make(chan time.Time, 1)
	done := make(chan time.Duration)
	go func() {
		l, err := b.Lock(ctx, "invoice/42")
		if err != nil {
			panic(err)
		}
		releasedByB <- time.Now()
		_ = l.Unlock(ctx)
	}()
	inLine(1) // b is in line
	go func() {
		l, err := c.Lock(ctx, "invoice/42")
		if err != nil {
			panic(err)
		}
		done <- time.Since(<-releasedByB)
		_ = l.Unlock(ctx)
	}()
	inLine(2) // c is in line behind b
	_ = held.Unlock(ctx)
	fmt.Println("c held it within 300 ms of b's release:", <-done < 300*time.Millisecond)
	// Output:
	// c held it within 300 ms of b's release: true
}

// A wake-up is sealed with the fleet's key; one sealed with another key is
// refused unread.
func ExampleOpen() {
	key := make([]byte, wakeup.MinKeyBytes)
	other := make([]byte, wakeup.MinKeyBytes)
	_, _ = rand.Read(key)
	_, _ = rand.Read(other)
	m := wakeup.Message{Table: "queue_lock", ID: "invoice/42", From: "cell-a", To: "cell-b", Sender: "a", Sent: 1, Nonce: 7}

	b, _ := wakeup.Seal(key, m)
	got, err := wakeup.Open(key, b)
	fmt.Println(got.ID, got.To, err)

	forged, _ := wakeup.Seal(other, m)
	_, err = wakeup.Open(key, forged)
	fmt.Println(errors.Is(err, wakeup.ErrForged))
	// Output:
	// invoice/42 cell-b <nil>
	// true
}
