package election

import (
	"context"

	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// Observe reports leader changes: it reads the leader record at once and
// then every Options.Poll, and sends on the channel it returns whenever what
// it reads differs from what it last sent. A Leader with Term 0 means no
// leader. It never reports a term lower than one it reported before (a
// record that old is a deposed leader's), and it never blocks on the
// channel: the channel holds one value, and a newer one replaces a value
// the caller has not received yet, so a slow reader sees the latest leader
// but may miss intermediate ones. Read errors are skipped; the next poll
// tries again.
//
// When ctx ends, the polling goroutine stops and closes the channel: wait
// for the close to know it has stopped.
func (e *Election) Observe(ctx context.Context) <-chan Leader {
	ch := make(chan Leader, 1)
	lifecycle.Go(e.cfg.clock, func() {
		defer close(ch)
		var last Leader
		var high int64 // the highest term reported
		first := true
		for {
			cur, ok, err := e.Leader(ctx)
			if err == nil && (!ok || cur.Term >= high) && (first || cur != last) {
				offer(ch, cur)
				last, first, high = cur, false, max(high, cur.Term)
			}
			if e.cfg.clock.Sleep(ctx, e.cfg.poll) != nil {
				return
			}
		}
	})
	return ch
}

// offer puts v in ch, a channel of capacity 1 that only the caller sends
// on, replacing a value not yet received.
func offer(ch chan Leader, v Leader) {
	select {
	case ch <- v:
		return
	default:
	}
	select {
	case <-ch:
	default:
	}
	ch <- v
}
