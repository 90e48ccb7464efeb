package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"connectrpc.com/connect"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// errNoPeerKey marks Open's refusal of a lockd without a peer key: a
// refusal, not a lockd that failed, so Open tries no other.
var errNoPeerKey = errors.New("lockd client: the lockd has no peer key")

// openFirst opens the session at Open: on Open's lockd, or, when it
// cannot answer (movable: Unavailable, a connection closed or reset), on
// the next of Options.Endpoints, around the list twice. Each lockd is
// tried twice because a keep-alive connection its lockd closed (a lockd
// cut off and back, or restarted) fails the call sent on it with no
// answer, and the next call opens a fresh one. A refusal lockd answered
// is returned at once: every lockd of the cluster would refuse the same.
//
// An OpenSession that lockd processed and whose answer was lost leaves a
// session there that the client never learns of: it holds no lock, and
// lapses after its TTL. With Endpoints, the identity's first peer token is
// read at the same lockd; a lockd that opens the session and then fails
// before it hands out the token is closed (best effort) and passed over.
func (s *Session) openFirst(ctx context.Context) error {
	want := s.ttl
	var errs []error
	for try := range 2 * len(s.urls) {
		u := s.urls[try%len(s.urls)]
		err := s.openAt(ctx, u)
		if err == nil {
			return nil
		}
		s.ttl, s.c = want, nil
		if ctx.Err() != nil || !movable(err) || errors.Is(err, errNoPeerKey) {
			return err
		}
		errs = append(errs, fmt.Errorf("%s: %w", u, err))
	}
	return fmt.Errorf("lockd client: no lockd opened the session (each of %q tried twice): %w", s.urls, errors.Join(errs...))
}

// openAt opens the session on the lockd at u and, with Endpoints, reads
// its first peer token there.
func (s *Session) openAt(ctx context.Context, u string) error {
	c, sent, ttl, err := s.openOn(ctx, u)
	if err != nil {
		return wrap(ctx, err)
	}
	s.ttl, s.c, s.deadline = ttl, c, sent.Add(ttl)
	if !s.moving() {
		return nil
	}
	if err := s.firstPeerToken(ctx); err != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), max(ttl/3, 100*time.Millisecond))
		_, _ = c.rpc.CloseSession(cctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: c.id}))
		cancel()
		c.stop()
		return err
	}
	return nil
}
