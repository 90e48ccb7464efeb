package lockd

import (
	"errors"
	"sort"
	"strings"

	"github.com/lockstep-go/lockstep"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// lockError maps the error of a failed Lock or TryLock of session ss,
// called by pr. The detail's id is the member that stopped it: an id
// asked, or the intention lock on an ancestor of one (the library's group
// error names it). A LOCKED message also names the sessions of this lockd
// whose identity holds that member, but only those pr may see (visible): a
// holder is otherwise none of the caller's business. A holder elsewhere
// (another lockd, a process using the library) or a waiter ahead in line is
// not named.
func (s *Server) lockError(pr *Principal, ss *session, err error) *rpcError {
	var stopped interface{ StoppedBy() lockstep.Request }
	id := ""
	if errors.As(err, &stopped) {
		id = stopped.StoppedBy().ID
	}
	e := lockError(err, ss.id, id, ss.lostHandles())
	if e.reason != pb.LockError_REASON_LOCKED || id == "" {
		return e
	}
	if names := s.holders(pr, id); len(names) > 0 {
		held := " (" + quote(id) + " is held by " + strings.Join(names, ", ") + " of this lockd)"
		if e.hint != "" {
			e.msg = strings.TrimSuffix(e.msg, ": "+e.hint) + held + ": " + e.hint
		} else {
			e.msg += held
		}
	}
	return e
}

// visible reports whether pr may learn of session ss: its own principal's
// sessions, every session for a principal granted list_sessions (it may
// list them all), and every session in open mode. Principals are compared
// by name.
func (s *Server) visible(pr *Principal, ss *session) bool {
	return s.principals.Load() == nil || pr.ListSessions || ss.principal.Name == pr.Name
}

// holders describes the live sessions pr may see whose identity holds a
// lock with member id, by session id: `session "s-3" ("export")`.
func (s *Server) holders(pr *Principal, id string) []string {
	s.mu.Lock()
	live := make([]*session, 0, len(s.live))
	for _, ss := range s.live {
		if s.visible(pr, ss) {
			live = append(live, ss)
		}
	}
	s.mu.Unlock()
	sort.Slice(live, func(i, j int) bool { return live[i].id < live[j].id })
	var out []string
	for _, ss := range live {
		if !ss.identity().holds(id) {
			continue
		}
		d := "session " + quote(ss.id)
		if ss.name != "" {
			d += " (" + quote(ss.name) + ")"
		}
		out = append(out, d)
	}
	return out
}

// holds reports whether one of the identity's locks has a member id (an
// intention lock on an ancestor counts).
func (id *identity) holds(member string) bool {
	id.mu.Lock()
	defer id.mu.Unlock()
	for _, h := range id.locks {
		for _, l := range memberLocks(h.lock) {
			if l.ID() == member {
				return true
			}
		}
	}
	return false
}

// memberLocks returns a group lock's members' own locks (the library's
// group Lock has MemberLocks), or l itself.
func memberLocks(l lockstep.Lock) []lockstep.Lock {
	if g, ok := l.(interface{ MemberLocks() []lockstep.Lock }); ok {
		return g.MemberLocks()
	}
	return []lockstep.Lock{l}
}
