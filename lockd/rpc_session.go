package lockd

import (
	"context"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/durationpb"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// OpenSession starts a session owned by the caller, with the TTL it asks
// (the default for none), within the server's bounds.
func (s *Server) OpenSession(ctx context.Context, req *connect.Request[pb.OpenSessionRequest]) (*connect.Response[pb.OpenSessionResponse], error) {
	pr, err := s.authenticate(ctx, "OpenSession")
	if err != nil {
		return nil, wire(err)
	}
	ttl := s.cfg.SessionTTL
	if d := req.Msg.GetTtl(); d != nil {
		if err := d.CheckValid(); err != nil {
			return nil, wire(invalid("ttl: %v", err))
		}
		if d.AsDuration() != 0 {
			ttl = d.AsDuration()
		}
	}
	if ttl < s.cfg.MinTTL || ttl > s.cfg.MaxTTL {
		return nil, wire(invalid("ttl %v is outside this server's bounds [%v, %v]: ask a TTL within them, or 0 for the default %v", ttl, s.cfg.MinTTL, s.cfg.MaxTTL, s.cfg.SessionTTL))
	}
	ss, err := s.openSession(ctx, pr, ttl, req.Msg.GetName())
	if err != nil {
		return nil, wire(err)
	}
	return connect.NewResponse(&pb.OpenSessionResponse{SessionId: ss.id, Ttl: durationpb.New(ttl)}), nil
}

// KeepAlive pushes the session's expiry one TTL ahead.
func (s *Server) KeepAlive(ctx context.Context, req *connect.Request[pb.KeepAliveRequest]) (*connect.Response[pb.KeepAliveResponse], error) {
	pr, err := s.authenticate(ctx, "KeepAlive")
	if err != nil {
		return nil, wire(err)
	}
	ss, err := s.session(ctx, "KeepAlive", pr, req.Msg.GetSessionId())
	if err != nil {
		return nil, wire(err)
	}
	return connect.NewResponse(&pb.KeepAliveResponse{Ttl: durationpb.New(ss.ttl), ValidFor: ss.identity().validFor()}), nil
}

// CloseSession releases the session's locks and ends it; watchers get
// CLOSED. ctx bounds the releases.
func (s *Server) CloseSession(ctx context.Context, req *connect.Request[pb.CloseSessionRequest]) (*connect.Response[pb.CloseSessionResponse], error) {
	pr, err := s.authenticate(ctx, "CloseSession")
	if err != nil {
		return nil, wire(err)
	}
	ss, err := s.session(ctx, "CloseSession", pr, req.Msg.GetSessionId())
	if err != nil {
		return nil, wire(err)
	}
	s.endSession(context.WithoutCancel(ctx), ss, closed, "closed by the client")
	return connect.NewResponse(&pb.CloseSessionResponse{}), nil
}

// WatchSession streams WATCHING, then each LOCK_LOST, then the final
// EXPIRED or CLOSED event; it returns when the session ends or the client
// goes away.
func (s *Server) WatchSession(ctx context.Context, req *connect.Request[pb.WatchSessionRequest], stream *connect.ServerStream[pb.SessionEvent]) error {
	pr, err := s.authenticate(ctx, "WatchSession")
	if err != nil {
		return wire(err)
	}
	ss, err := s.session(ctx, "WatchSession", pr, req.Msg.GetSessionId())
	if err != nil {
		return wire(err)
	}
	ch, ok := ss.subscribe()
	if !ok {
		return wire(ss.endedError())
	}
	defer ss.unsubscribe(ch)
	if err := stream.Send(&pb.SessionEvent{Kind: pb.SessionEvent_KIND_WATCHING, SessionId: ss.id}); err != nil {
		return err
	}
	for {
		select {
		case ev := <-ch:
			if err := stream.Send(ev); err != nil {
				return err
			}
		case <-ss.ctx.Done():
			for drained := false; !drained; {
				select {
				case ev := <-ch:
					if err := stream.Send(ev); err != nil {
						return err
					}
				default:
					drained = true
				}
			}
			<-ss.released // the final event says the locks were released
			return stream.Send(ss.finalEvent())
		case <-ctx.Done():
			return nil
		}
	}
}

// DescribeSession returns the session and the locks it holds.
func (s *Server) DescribeSession(ctx context.Context, req *connect.Request[pb.DescribeSessionRequest]) (*connect.Response[pb.DescribeSessionResponse], error) {
	pr, err := s.authenticate(ctx, "DescribeSession")
	if err != nil {
		return nil, wire(err)
	}
	ss, err := s.session(ctx, "DescribeSession", pr, req.Msg.GetSessionId())
	if err != nil {
		return nil, wire(err)
	}
	return connect.NewResponse(ss.describe()), nil
}
