package main

import (
	"bytes"
	"encoding/json"
	"io"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/migration/census"
)

// The JSON of --output json. The field names are an interface: scripts
// parse them, so they only ever gain fields (package documentation lists
// them). Times are RFC 3339 in UTC, TTLs seconds (0: none), and lists are
// [] rather than null when empty.

// writeJSON writes v, indented, with a final newline, its non-printable
// runes escaped (escapeJSON).
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeJSON(buf.Bytes()))
	return err
}

type inspectJSON struct {
	Lock        string     `json:"lock"`
	Keyspace    string     `json:"keyspace"`
	ReadAt      time.Time  `json:"read_at"`
	Consistency string     `json:"consistency"`
	Queue       queueJSON  `json:"queue"`
	Legacy      legacyJSON `json:"legacy"`
}

type queueJSON struct {
	Table      string          `json:"table"`
	State      string          `json:"state"` // free, held or contested
	Holder     string          `json:"holder,omitempty"`
	Owners     []queueCellJSON `json:"owners"`
	Queue      []queueCellJSON `json:"queue"` // in line order
	Floor      *time.Time      `json:"floor"` // null: no floor cell yet
	FloorError string          `json:"floor_error,omitempty"`
	FullRead   bool            `json:"full_read"`
	Evidence   int64           `json:"evidence,omitempty"` // the highest fencing token a release recorded
	Foreign    []foreignJSON   `json:"foreign"`
}

type queueCellJSON struct {
	Owner      string     `json:"owner"`
	Enqueued   *time.Time `json:"enqueued"` // null: a holder whose queue cell went with its first renewal
	Written    time.Time  `json:"written"`
	TTLSeconds float64    `json:"ttl_seconds"`
	Access     string     `json:"access"` // X, S, IS, IX or SIX (lockstep.Access)
}

type foreignJSON struct {
	Column  string    `json:"column"`
	Written time.Time `json:"written"`
}

type legacyJSON struct {
	MainTable   string           `json:"main_table"`
	ShadowTable string           `json:"shadow_table"`
	State       string           `json:"state"` // free, held or blocked
	Holder      string           `json:"holder,omitempty"`
	Main        []legacyCellJSON `json:"main"`
	Shadow      []legacyCellJSON `json:"shadow"`
}

type legacyCellJSON struct {
	Owner      string    `json:"owner"`
	Written    time.Time `json:"written"`
	TTLSeconds float64   `json:"ttl_seconds"`
}

func micros(t int64) time.Time { return time.UnixMicro(t).UTC() }

// enqueued is a cell's "enqueued": nil when unknown (0).
func enqueued(t int64) *time.Time {
	if t == 0 {
		return nil
	}
	u := micros(t)
	return &u
}

// report is inspect's JSON of lc, read at now.
func (lc *lockCells) report(o *options, now time.Time) inspectJSON {
	r := inspectJSON{Lock: lc.id, Keyspace: o.Keyspace, ReadAt: now.UTC(), Consistency: o.Consistency.String()}
	q := queueJSON{Table: lc.queueName, State: "free", Owners: []queueCellJSON{}, Queue: []queueCellJSON{},
		FullRead: lc.fullRead || lc.floorErr != nil, Foreign: []foreignJSON{}}
	switch {
	case len(lc.owners) == 0:
	case lc.compatibleOwners():
		q.State, q.Holder = "held", lc.holders()
	default:
		q.State = "contested"
	}
	for _, c := range lc.owners {
		q.Owners = append(q.Owners, queueCellJSON{c.id, enqueued(c.named), micros(c.Timestamp), c.TTL.Seconds(), c.access.String()})
	}
	for _, c := range lc.queue {
		q.Queue = append(q.Queue, queueCellJSON{c.id, enqueued(c.named), micros(c.Timestamp), c.TTL.Seconds(), c.access.String()})
	}
	if lc.floor != 0 {
		f := micros(lc.floor)
		q.Floor = &f
	}
	if lc.floorErr != nil {
		q.FloorError = lc.floorErr.Error()
	}
	q.Evidence = lc.evidence
	for _, c := range lc.foreign {
		q.Foreign = append(q.Foreign, foreignJSON{c.Column, micros(c.Timestamp)})
	}
	l := legacyJSON{MainTable: lc.mainName, ShadowTable: lc.shadowName, State: "free", Main: legacyCells(lc.main), Shadow: legacyCells(lc.shadow)}
	switch len(lc.main) {
	case 0:
	case 1:
		l.State, l.Holder = "held", lc.main[0].Column
	default:
		l.State = "blocked"
	}
	r.Queue, r.Legacy = q, l
	return r
}

func legacyCells(cells []lockstep.Cell) []legacyCellJSON {
	out := make([]legacyCellJSON, 0, len(cells))
	for _, c := range cells {
		out = append(out, legacyCellJSON{c.Column, micros(c.Timestamp), c.TTL.Seconds()})
	}
	return out
}

type phaseJSON struct {
	Phase   string   `json:"phase"`  // as stored: legacy, combined, new or pending:<from>-><to>
	Mode    string   `json:"mode"`   // the committed phase, or the one being left
	Target  string   `json:"target"` // the phase being entered; "" unless pending
	Pending bool     `json:"pending"`
	Allows  []string `json:"allows"` // the modes processes may take locks in
}

func phaseReport(p migration.Phase) phaseJSON {
	r := phaseJSON{Phase: p.String(), Mode: p.Mode.String(), Pending: p.Pending(), Allows: []string{}}
	if p.Pending() {
		r.Target = p.Target.String()
	}
	for m := lockstep.ModeLegacy; m <= lockstep.ModeNew; m++ {
		if p.Allows(m) {
			r.Allows = append(r.Allows, m.String())
		}
	}
	return r
}

type fleetJSON struct {
	Keyspace  string        `json:"keyspace"`
	Table     string        `json:"table"`
	ReadAt    time.Time     `json:"read_at"`
	Phase     phaseJSON     `json:"phase"`
	Processes []processJSON `json:"processes"`
	Moves     []moveJSON    `json:"moves"` // one per phase one step away
}

type processJSON struct {
	Process    string         `json:"process"`
	Host       string         `json:"host"`
	Version    string         `json:"version"`
	Configured string         `json:"configured"`
	Held       map[string]int `json:"held"`
	Acquiring  map[string]int `json:"acquiring"`
	Sent       *time.Time     `json:"sent"` // by the process's clock; null for an unreadable entry
	TTLSeconds float64        `json:"ttl_seconds"`
	Error      string         `json:"error,omitempty"` // the entry could not be decoded
}

type moveJSON struct {
	To       string   `json:"to"`
	Blocked  bool     `json:"blocked"`
	Blockers []string `json:"blockers"` // process ids
	Reason   string   `json:"reason,omitempty"`
}

func fleetReport(o *options, p migration.Phase, entries []census.Entry, now time.Time) fleetJSON {
	r := fleetJSON{Keyspace: o.Keyspace, Table: o.tableNames().FleetCensus, ReadAt: now.UTC(), Phase: phaseReport(p),
		Processes: make([]processJSON, 0, len(entries)), Moves: []moveJSON{}}
	for _, e := range entries {
		pj := processJSON{Process: e.Process, TTLSeconds: e.TTL.Seconds(), Held: map[string]int{}, Acquiring: map[string]int{}}
		if e.Err != nil {
			pj.Error = e.Err.Error()
			r.Processes = append(r.Processes, pj)
			continue
		}
		sent := e.Time.UTC()
		pj.Host, pj.Version, pj.Configured, pj.Sent = e.Host, e.Version, e.Configured.String(), &sent
		for m, n := range e.Held {
			if n > 0 {
				pj.Held[m.String()] = n
			}
		}
		for m, n := range e.Acquiring {
			if n > 0 {
				pj.Acquiring[m.String()] = n
			}
		}
		r.Processes = append(r.Processes, pj)
	}
	for _, to := range neighbours(p.Mode) {
		mv := moveJSON{To: to.String(), Blockers: []string{}}
		for _, b := range migration.Blocking(entries, to) {
			mv.Blockers = append(mv.Blockers, b.Process)
		}
		if mv.Blocked = len(mv.Blockers) > 0; mv.Blocked {
			mv.Reason = (&migration.MoveError{From: p.Mode, To: to, Blockers: migration.Blocking(entries, to)}).Error()
		}
		r.Moves = append(r.Moves, mv)
	}
	return r
}
