package lockd

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/inspect"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/migration/census"
)

// snapshot gathers what panel ("all" for the page) shows to pr. A failed
// read of the store is shown in its panel, not as an error page.
func (v *view) snapshot(ctx context.Context, pr *Principal, panel string) viewData {
	now := time.Now()
	d := viewData{Principal: pr.Name, Open: v.s.principals.Load() == nil, At: now, RefreshMS: v.opts.Refresh.Milliseconds()}
	want := func(p string) bool { return panel == "all" || panel == p }
	if want("fleet") {
		d.Fleet = v.fleet(ctx, now)
	}
	if want("hot") {
		d.Hot = v.hot(ctx, pr, now)
	}
	if want("sessions") {
		d.Sessions = v.sessions(pr)
	}
	if want("deadlocks") {
		d.Deadlocks = v.deadlocks(pr)
	}
	if want("charts") {
		d.Charts = v.charts()
	}
	return d
}

// fleet reads the phase and the census, as lockctl fleet does.
func (v *view) fleet(ctx context.Context, now time.Time) fleetPanel {
	f := fleetPanel{Allows: []string{}, Processes: []processRow{}, Moves: []moveRow{}}
	ctl, err := migration.NewController(v.store, &migration.ControllerOptions{PhaseTable: v.opts.PhaseTable, CensusTable: v.opts.CensusTable})
	if err != nil {
		f.Err = err.Error()
		return f
	}
	p, err := ctl.Get(ctx)
	if err != nil {
		f.Err = "reading the phase: " + err.Error()
		return f
	}
	f.Phase, f.Description = p.String(), describePhase(p)
	for m := lockstep.ModeLegacy; m <= lockstep.ModeNew; m++ {
		if p.Allows(m) {
			f.Allows = append(f.Allows, m.String())
		}
	}
	entries, err := census.Read(ctx, v.store, v.opts.CensusTable)
	if err != nil {
		f.Err = "reading the census: " + err.Error()
		return f
	}
	self := ""
	if pl, ok := v.s.locker.(interface{ Process() string }); ok {
		self = pl.Process()
	}
	for _, e := range entries {
		row := processRow{Process: e.Process, Host: e.Host, Version: e.Version, Configured: e.Configured.String(),
			Held: byMode(e.Held), AcquiringByMode: byMode(e.Acquiring), HeartbeatAgeSeconds: now.Sub(e.Time).Seconds(), TTLSeconds: e.TTL.Seconds(),
			Holds: countsText(e.Held), Acquiring: countsText(e.Acquiring), Heartbeat: ageText(now.Sub(e.Time)) + " ago", TTL: e.TTL.String(), Self: e.Process == self}
		if e.Err != nil {
			row.Err = "unreadable entry: " + e.Err.Error()
		}
		f.Processes = append(f.Processes, row)
	}
	for _, to := range phaseNeighbours(p.Mode) {
		m := moveRow{To: to.String(), Blockers: []string{}}
		if b := migration.Blocking(entries, to); len(b) > 0 {
			m.Blocked, m.Text = true, (&migration.MoveError{From: p.Mode, To: to, Blockers: b}).Error()
			for _, e := range b {
				m.Blockers = append(m.Blockers, e.Process)
			}
		} else {
			m.Text = "no live process blocks it"
		}
		f.Moves = append(f.Moves, m)
	}
	return f
}

// describePhase renders a phase with the modes processes may lock in, as
// lockctl phase get does.
func describePhase(p migration.Phase) string {
	var allowed []string
	for m := lockstep.ModeLegacy; m <= lockstep.ModeNew; m++ {
		if p.Allows(m) {
			allowed = append(allowed, m.String())
		}
	}
	s := fmt.Sprintf("%v (processes may take locks in: %s)", p, strings.Join(allowed, ", "))
	if p.Pending() {
		s += "; a move is in progress: run lockctl phase set again to finish or revert it"
	}
	return s
}

// phaseNeighbours are the phases one step from m.
func phaseNeighbours(m lockstep.Mode) []lockstep.Mode {
	switch m {
	case lockstep.ModeLegacy, lockstep.ModeNew:
		return []lockstep.Mode{lockstep.ModeCombined}
	case lockstep.ModeCombined:
		return []lockstep.Mode{lockstep.ModeLegacy, lockstep.ModeNew}
	}
	return nil
}

// countsText renders lock counts by mode, "legacy×1, new×2", or "-".
func countsText(m map[lockstep.Mode]int) string {
	var parts []string
	for mode := lockstep.ModeLegacy; mode <= lockstep.ModeNew; mode++ {
		if n := m[mode]; n > 0 {
			parts = append(parts, fmt.Sprintf("%v×%d", mode, n))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// byMode is a count per mode by the mode's name, without zeros.
func byMode(m map[lockstep.Mode]int) map[string]int {
	out := map[string]int{}
	for mode, n := range m {
		if n > 0 {
			out[mode.String()] = n
		}
	}
	return out
}

func ageText(d time.Duration) string { return d.Round(time.Millisecond).String() }

// heldHere is one lock a session of this Server holds, for the hot ids'
// tokens and sessions.
type heldHere struct {
	session, lockID string
	ids             []string
	token           int64
	owner           string
}

// liveSessions returns the Server's live sessions, by id.
func (s *Server) liveSessions() []*session {
	s.mu.Lock()
	out := make([]*session, 0, len(s.live))
	for _, ss := range s.live {
		out = append(out, ss)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// heldLocks lists the locks of the Server's live sessions.
func (s *Server) heldLocks() []heldHere {
	var out []heldHere
	for _, ss := range s.liveSessions() {
		ss.mu.Lock()
		id := ss.ident
		ss.mu.Unlock()
		id.mu.Lock()
		for _, h := range id.locks {
			hh := heldHere{session: ss.id, lockID: h.id, token: h.token, owner: h.lock.Owner()}
			for _, it := range h.items {
				hh.ids = append(hh.ids, it.Id)
			}
			out = append(out, hh)
		}
		id.mu.Unlock()
	}
	return out
}

// hot reads the cells of the hottest ids pr may see: the Recorder's busiest
// of the last minutes, then those the Server's sessions hold.
func (v *view) hot(ctx context.Context, pr *Principal, now time.Time) hotPanel {
	p := hotPanel{IDs: []hotID{}}
	held := v.s.heldLocks()
	waits := v.s.localWaits()
	seen := map[string]*hotID{}
	var order []*hotID
	add := func(id string) *hotID {
		if h := seen[id]; h != nil {
			return h
		}
		h := &hotID{ID: id, Holders: []holderRow{}, Waiters: []waiterRow{}}
		seen[id] = h
		order = append(order, h)
		return h
	}
	for _, a := range v.opts.Recorder.Hottest(v.opts.Hottest, pr.grants) {
		h := add(a.ID)
		h.Acquired, h.Contended = a.Acquired, a.Contended
	}
	for _, hh := range held {
		for _, id := range hh.ids {
			if len(order) < v.opts.Hottest && pr.grants(id) && !strings.HasSuffix(id, "*") {
				add(id)
			}
		}
	}
	for _, w := range waits {
		for _, it := range w.items {
			if len(order) < v.opts.Hottest && pr.grants(strings.TrimSuffix(it.Id, "*")) {
				add(it.Id)
			}
		}
	}
	for _, h := range order {
		v.readHot(ctx, h, held, now)
		h.addLocalWaits(waits, now)
		p.IDs = append(p.IDs, *h)
	}
	return p
}

// readHot fills h from its cells and the sessions holding it.
func (v *view) readHot(ctx context.Context, h *hotID, held []heldHere, now time.Time) {
	lc, err := inspect.Read(ctx, v.store, v.opts.Tables, h.ID, false)
	if err != nil {
		h.Err = err.Error()
		return
	}
	h.State = "free"
	if len(lc.Owners) > 0 {
		h.State = "held"
		if !lc.Compatible() {
			h.State = "contested"
		}
	}
	for _, o := range lc.Owners {
		row := holderRow{Owner: o.ID, Process: o.Process, Access: o.Access.String(), Since: "-"}
		if o.Enqueued != 0 {
			w := o.Waited(now)
			row.Since, row.InLineSeconds = ageText(w)+" ago", new(w.Seconds())
		}
		for _, hh := range held {
			if hh.owner == o.ID || (len(hh.ids) == 1 && hh.ids[0] == h.ID && len(lc.Owners) == 1) {
				row.Session, row.Lock, row.Token = hh.session, hh.lockID, hh.token
			}
		}
		h.Holders = append(h.Holders, row)
	}
	for i, q := range lc.Waiting() {
		h.Waiters = append(h.Waiters, waiterRow{Pos: i + 1, Owner: q.ID, Access: q.Access.String(), WaitedSeconds: q.Waited(now).Seconds(), Waited: ageText(q.Waited(now))})
	}
	if owner, ok := lc.LegacyHolder(); ok {
		h.Legacy = "held by " + owner
	} else if len(lc.Main) > 1 {
		h.Legacy = fmt.Sprintf("blocked: %d cells in the main row", len(lc.Main))
	}
}

// sessions lists the sessions pr may see: its own, or every one with
// list_sessions (or in open mode); locks on ids outside its prefixes are
// counted, not shown.
func (v *view) sessions(pr *Principal) sessionsPanel {
	p := sessionsPanel{All: pr.ListSessions || v.s.principals.Load() == nil, Sessions: []sessionRow{}}
	for _, ss := range v.s.liveSessions() {
		if !p.All && ss.principal.Name != pr.Name {
			continue
		}
		d := ss.describe()
		row := sessionRow{ID: d.SessionId, Name: d.Name, Principal: d.Principal, TTLSeconds: d.Ttl.AsDuration().Seconds(), TTL: d.Ttl.AsDuration().String(),
			Identity: d.Identity, Sharing: int(d.IdentitySessions), Locks: []lockRow{}}
		for _, l := range d.Locks {
			var items []string
			lr := lockRow{LockID: l.LockId, Token: l.Token, Requests: []itemRow{}}
			visible := true
			for _, it := range l.Items {
				visible = visible && pr.grants(strings.TrimSuffix(it.Id, "*"))
				items = append(items, it.Id+" ("+accessName(it.Access)+")")
				lr.Requests = append(lr.Requests, itemRow{ID: it.Id, Access: accessName(it.Access)})
			}
			if !visible {
				row.Hidden++
				continue
			}
			lr.Items = strings.Join(items, ", ")
			row.Locks = append(row.Locks, lr)
		}
		p.Sessions = append(p.Sessions, row)
	}
	return p
}

// deadlocks are the Recorder's reports whose every id pr may see.
func (v *view) deadlocks(pr *Principal) []deadlockView {
	out := []deadlockView{}
	for _, r := range v.opts.Recorder.Deadlocks(func(r DeadlockReport) bool {
		for _, m := range r.Cycle {
			if !pr.grants(m.Waits.ID) {
				return false
			}
		}
		return true
	}) {
		dv := deadlockView{Time: r.At.UTC(), At: r.At.UTC().Format("15:04:05.000"), Members: []memberRow{}}
		for _, m := range r.Cycle {
			dv.Members = append(dv.Members, memberRow{Process: m.Process, Waits: m.Waits.ID, Access: m.Waits.Access.String(), HeldBy: m.HeldBy, HeldIn: m.HeldIn.String(), Comment: m.Comment})
		}
		out = append(out, dv)
	}
	return out
}

// addLocalWaits appends the Lock calls of this lockd's sessions waiting for
// h's id, oldest first, after the store's line.
func (h *hotID) addLocalWaits(waits []localWait, now time.Time) {
	for _, w := range waits {
		for _, it := range w.items {
			if it.Id == h.ID {
				h.Waiters = append(h.Waiters, waiterRow{Pos: len(h.Waiters) + 1, Session: w.session, Principal: w.principal,
					Access: accessName(it.Access), WaitedSeconds: now.Sub(w.since).Seconds(), Waited: ageText(now.Sub(w.since)), Comment: w.comment})
			}
		}
	}
}
