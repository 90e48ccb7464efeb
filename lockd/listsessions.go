package lockd

import (
	"context"
	"sort"

	"connectrpc.com/connect"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// ListSessions returns every live session of this server, by id, each as
// DescribeSession renders it: for operators (lockctl sessions). It shows
// other principals' sessions, so it is refused (PermissionDenied, logged)
// to a principal not granted list_sessions; in open mode any caller may.
// Listing touches no session: it is no sign of life.
func (s *Server) ListSessions(ctx context.Context, _ *connect.Request[pb.ListSessionsRequest]) (*connect.Response[pb.ListSessionsResponse], error) {
	pr, err := s.authenticate(ctx, "ListSessions")
	if err != nil {
		return nil, wire(err)
	}
	if s.principals.Load() != nil && !pr.ListSessions {
		return nil, wire(s.refuse(ctx, "ListSessions", pr.Name, "", &rpcError{code: connect.CodePermissionDenied, reason: pb.LockError_REASON_NOT_YOUR_SESSION,
			msg: "principal " + quote(pr.Name) + " may not list the server's sessions: they are other principals' too; grant it \"list_sessions\": true in the principals file, or use DescribeSession on its own sessions"}))
	}
	s.mu.Lock()
	live := make([]*session, 0, len(s.live))
	for _, ss := range s.live {
		live = append(live, ss)
	}
	s.mu.Unlock()
	res := &pb.ListSessionsResponse{}
	for _, ss := range live {
		res.Sessions = append(res.Sessions, ss.describe())
	}
	sort.Slice(res.Sessions, func(i, j int) bool { return res.Sessions[i].SessionId < res.Sessions[j].SessionId })
	return connect.NewResponse(res), nil
}
