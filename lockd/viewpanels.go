package lockd

import "time"

// What the view's panels hold. One value of viewData, gathered by snapshot
// for one principal, is both what the page renders (view/page.html) and,
// encoded as it is, what the view's JSON answers (viewjson.go): a script
// reads what a person sees, filtered by the same prefixes. Where the page
// shows a number as text ("1.2s ago", "legacy×1"), the JSON has the number
// (seconds, counts per mode) in a field of its own, filled at the same
// spot; the text, tagged "-", is the page's alone. JSON names are
// snake_case, durations seconds, and lists [] rather than null.

// viewData is what one page or panel shows to one principal: gathered at
// each request from the store (phase, census, the hottest ids' cells), the
// Server's sessions and the Recorder, filtered to the principal's prefixes.
// The JSON of one panel carries that panel only (omitzero).
type viewData struct {
	Principal string         `json:"principal"`
	Open      bool           `json:"open"` // open mode: no login
	At        time.Time      `json:"at"`
	RefreshMS int64          `json:"-"`
	Fleet     fleetPanel     `json:"fleet,omitzero"`
	Hot       hotPanel       `json:"hot,omitzero"`
	Sessions  sessionsPanel  `json:"sessions,omitzero"`
	Deadlocks []deadlockView `json:"deadlocks,omitzero"`
	Charts    []chartView    `json:"charts,omitzero"`
}

type fleetPanel struct {
	Phase       string       `json:"phase"`       // as stored: legacy, combined, new or pending:<from>-><to>
	Description string       `json:"description"` // with the modes it allows, as lockctl phase get says
	Allows      []string     `json:"allows"`
	Err         string       `json:"error,omitempty"`
	Processes   []processRow `json:"processes"`
	Moves       []moveRow    `json:"moves"`
}

type processRow struct {
	Process             string         `json:"process"`
	Host                string         `json:"host"`
	Version             string         `json:"version"`
	Configured          string         `json:"configured"`
	Held                map[string]int `json:"held"`      // locks held, per mode
	AcquiringByMode     map[string]int `json:"acquiring"` // acquisitions under way, per mode
	HeartbeatAgeSeconds float64        `json:"heartbeat_age_seconds"`
	TTLSeconds          float64        `json:"ttl_seconds"`
	Self                bool           `json:"self"` // this lockd's process
	Err                 string         `json:"error,omitempty"`

	Holds, Acquiring, Heartbeat, TTL string `json:"-"`
}

// moveRow is a move one step from the phase: blocked, with the words
// `lockctl phase set` would refuse it with, or free.
type moveRow struct {
	To       string   `json:"to"`
	Blocked  bool     `json:"blocked"`
	Text     string   `json:"text"`
	Blockers []string `json:"blockers"` // process ids
}

type hotPanel struct {
	IDs []hotID `json:"ids"`
	Err string  `json:"error,omitempty"`
}

type hotID struct {
	ID        string      `json:"id"`
	Acquired  int         `json:"acquired"`  // through this lockd, in the last five minutes
	Contended int         `json:"contended"` // waited 50ms or more, or refused
	State     string      `json:"state"`     // free, held, contested
	Holders   []holderRow `json:"holders"`
	Waiters   []waiterRow `json:"waiters"` // the store's line, then this lockd's Lock calls
	Legacy    string      `json:"legacy,omitempty"`
	Err       string      `json:"error,omitempty"`
}

// holderRow is one owner cell of an id; Session and Lock name the lockd
// session holding it when it is one of this lockd's.
type holderRow struct {
	Owner         string   `json:"owner"`
	Process       string   `json:"process"`
	Access        string   `json:"access"`
	InLineSeconds *float64 `json:"in_line_seconds"` // null: unknown
	Token         int64    `json:"token"`           // 0: none known
	Session       string   `json:"session"`
	Lock          string   `json:"lock"`

	Since string `json:"-"`
}

// waiterRow is one waiter: in the store's line (Owner, another process's
// acquisition or one of this lockd's that reached it), or a Lock call of
// this lockd's sessions (Session and Principal, with its Comment).
type waiterRow struct {
	Pos           int     `json:"position"`
	Owner         string  `json:"owner,omitempty"`
	Session       string  `json:"session,omitempty"`
	Principal     string  `json:"principal,omitempty"`
	Access        string  `json:"access"`
	WaitedSeconds float64 `json:"waited_seconds"`
	Comment       string  `json:"comment,omitempty"`

	Waited string `json:"-"`
}

type sessionsPanel struct {
	All      bool         `json:"all"` // the principal may list every session (list_sessions)
	Sessions []sessionRow `json:"sessions"`
}

type sessionRow struct {
	ID         string    `json:"session"`
	Name       string    `json:"name"`
	Principal  string    `json:"principal"`
	TTLSeconds float64   `json:"ttl_seconds"`
	Identity   string    `json:"identity"`
	Sharing    int       `json:"identity_sessions"`
	Locks      []lockRow `json:"locks"`
	Hidden     int       `json:"hidden_locks"` // locks with an id outside the principal's prefixes

	TTL string `json:"-"`
}

type lockRow struct {
	LockID   string    `json:"lock"`
	Requests []itemRow `json:"items"`
	Token    int64     `json:"token"` // 0: none

	Items string `json:"-"`
}

type itemRow struct {
	ID     string `json:"id"`
	Access string `json:"access"`
}

type deadlockView struct {
	Time    time.Time   `json:"at"`
	Members []memberRow `json:"cycle"` // the first member's Lock was failed

	At string `json:"-"`
}

type memberRow struct {
	Process string `json:"process"`
	Waits   string `json:"waits"` // the id
	Access  string `json:"access"`
	HeldBy  string `json:"held_by"`
	HeldIn  string `json:"held_in"`
	Comment string `json:"comment,omitempty"`
}
