package lockd

import (
	"context"
	"crypto/rand"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/inspect"
)

// ViewPath is where a Server's web view is served: mount View's handler on
// it ("/ui/" and everything under it).
const ViewPath = "/ui/"

// Defaults of ViewOptions.
const (
	DefaultViewRefresh  = 2 * time.Second
	DefaultViewLoginTTL = 12 * time.Hour
	DefaultViewHottest  = 10
)

//go:embed view
var viewFiles embed.FS

// ViewOptions configure the web view (Server.View). The zero value of every
// field but Store and Recorder means its default.
type ViewOptions struct {
	// Store is the store the Server's Locker locks on. The view only reads
	// it (the phase, the census, the cells of the hottest ids), through a
	// wrapper that refuses every write. Required.
	Store lockstep.Store
	// Recorder is the Locker's Recorder (an Observer of its events):
	// the charts, the hottest ids and the deadlock reports come from it.
	// Required.
	Recorder *Recorder
	// Tables are the lock tables the Locker uses (default: the schema's
	// names). CensusTable and PhaseTable are the fleet's (default
	// "fleet_census" and "fleet_phase").
	Tables                  inspect.Tables
	CensusTable, PhaseTable string
	// Refresh is how often an open page reloads its panels (default 2s).
	Refresh time.Duration
	// LoginTTL is how long a login in the browser lasts (default 12h).
	LoginTTL time.Duration
	// Hottest is how many ids the hottest-ids panel shows (default 10).
	Hottest int
}

// view is the web view of one Server.
type view struct {
	s     *Server
	opts  ViewOptions
	store lockstep.Store // read-only
	key   []byte         // signs login cookies; new at each start
	pages *template.Template
}

// View returns the handler of the Server's web view, to mount on ViewPath
// (lockd's --ui): a read-only page of the fleet's migration phase and
// census, what blocks the next phase move, the hottest ids with their
// holders and line, the Server's sessions, recent deadlock reports and
// charts of the last minutes. It is served under the Server's
// authentication: in principals mode a caller must be a principal granted
// "web_view" (403 otherwise), authenticated by a client certificate, a
// bearer token, or a login cookie the page's form sets from a token
// (viewauth.go, docs/security.md); ids outside the principal's prefixes
// are never shown. ViewPath+"api/{panel}" answers each panel's data as
// JSON, under the same checks (viewjson.go). The view writes nothing to the
// store and takes no lock.
func (s *Server) View(opts *ViewOptions) (http.Handler, error) {
	if opts == nil || opts.Store == nil {
		return nil, &lockstep.ConfigError{Field: "ViewOptions.Store", Reason: "nil: pass the store the Server's Locker locks on"}
	}
	if opts.Recorder == nil {
		return nil, &lockstep.ConfigError{Field: "ViewOptions.Recorder", Reason: "nil: pass the Recorder given to the Locker as its Observer (NewRecorder)"}
	}
	o := *opts
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&o.Refresh, DefaultViewRefresh)
	def(&o.LoginTTL, DefaultViewLoginTTL)
	if o.Hottest == 0 {
		o.Hottest = DefaultViewHottest
	}
	if o.CensusTable == "" {
		o.CensusTable = "fleet_census"
	}
	if o.PhaseTable == "" {
		o.PhaseTable = "fleet_phase"
	}
	switch {
	case o.Refresh < 500*time.Millisecond:
		return nil, &lockstep.ConfigError{Field: "ViewOptions.Refresh", Reason: fmt.Sprintf("%v: each refresh reads the store; use at least 500ms", o.Refresh)}
	case o.LoginTTL < time.Minute:
		return nil, &lockstep.ConfigError{Field: "ViewOptions.LoginTTL", Reason: fmt.Sprintf("%v: use at least 1m", o.LoginTTL)}
	case o.Hottest < 0 || o.Hottest > 100:
		return nil, &lockstep.ConfigError{Field: "ViewOptions.Hottest", Reason: fmt.Sprintf("%d: show between 1 and 100 ids (each is read from the store at every refresh)", o.Hottest)}
	}
	pages, err := template.New("").Funcs(viewFuncs).ParseFS(viewFiles, "view/*.html")
	if err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	v := &view{s: s, opts: o, store: readOnly{o.Store}, key: key, pages: pages}
	s.viewRecorder.Store(o.Recorder)
	return v.routes(), nil
}

// routes are the view's pages, panels, JSON and assets, each behind the
// security headers; pages, panels and JSON also behind the caller's
// authentication and grant.
func (v *view) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(viewFiles, "view/static")
	mux.Handle("GET "+ViewPath+"static/", http.StripPrefix(ViewPath+"static/", http.FileServerFS(static)))
	mux.Handle("GET "+ViewPath+"{$}", v.granted(v.page))
	mux.Handle("GET "+ViewPath+"panel/{name}", v.granted(v.panel))
	mux.Handle("GET "+ViewPath+"api/{name}", v.authorize(v.api, refuseJSON))
	mux.HandleFunc("GET "+ViewPath+"login", v.loginForm)
	cop := http.NewCrossOriginProtection() // the login and logout forms post from the view's own origin only
	mux.Handle("POST "+ViewPath+"login", cop.Handler(http.HandlerFunc(v.login)))
	mux.Handle("POST "+ViewPath+"logout", cop.Handler(http.HandlerFunc(v.logout)))
	return secureHeaders(mux)
}

// secureHeaders sets the headers every answer of the view carries: a
// Content-Security-Policy that runs only the view's own script file (no
// inline script or style, no frames), no caching, no sniffing, no referrer.
func secureHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "no-store")
		hd.Set("X-Frame-Options", "DENY")
		h.ServeHTTP(w, r)
	})
}

// page serves the whole page for pr.
func (v *view) page(w http.ResponseWriter, r *http.Request, pr *Principal) {
	v.render(w, "page", v.snapshot(r.Context(), pr, "all"))
}

// panel serves one panel's fragment for pr, which the page's script swaps
// in at each refresh.
func (v *view) panel(w http.ResponseWriter, r *http.Request, pr *Principal) {
	name := r.PathValue("name")
	if !panelNames[name] {
		http.Error(w, "no panel "+fmt.Sprintf("%q", name)+": the panels are fleet, hot, sessions, deadlocks and charts", http.StatusNotFound)
		return
	}
	v.render(w, "panel-"+name, v.snapshot(r.Context(), pr, name))
}

var panelNames = map[string]bool{"fleet": true, "hot": true, "sessions": true, "deadlocks": true, "charts": true}

func (v *view) render(w http.ResponseWriter, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := v.pages.ExecuteTemplate(w, name, data); err != nil {
		v.s.log.Warn("lockd: web view: rendering failed", "template", name, "error", err)
	}
}

// readOnly is the view's store: reads pass, writes are refused, so that no
// bug of the view can change a lock.
type readOnly struct{ lockstep.Store }

func (readOnly) Put(_ context.Context, table, row string, _ ...lockstep.Cell) error {
	return fmt.Errorf("lockd: web view: refused a write to %s (row %q): the view only reads", table, row)
}

func (readOnly) Delete(_ context.Context, table, row string, _ int64, _ ...string) error {
	return fmt.Errorf("lockd: web view: refused a delete in %s (row %q): the view only reads", table, row)
}
