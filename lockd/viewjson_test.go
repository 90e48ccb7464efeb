package lockd_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/migration"
)

// viewJSON is the view's JSON as a script reads it (the fields the tests
// compare with the page).
type viewJSON struct {
	Principal string `json:"principal"`
	Fleet     *struct {
		Phase       string   `json:"phase"`
		Description string   `json:"description"`
		Allows      []string `json:"allows"`
		Processes   []struct {
			Process, Version, Configured string
			Held                         map[string]int `json:"held"`
			TTLSeconds                   float64        `json:"ttl_seconds"`
		} `json:"processes"`
		Moves []struct {
			To       string   `json:"to"`
			Blocked  bool     `json:"blocked"`
			Text     string   `json:"text"`
			Blockers []string `json:"blockers"`
		} `json:"moves"`
	} `json:"fleet"`
	Hot *struct {
		IDs []struct {
			ID      string `json:"id"`
			State   string `json:"state"`
			Holders []struct {
				Owner   string `json:"owner"`
				Token   int64  `json:"token"`
				Session string `json:"session"`
				Lock    string `json:"lock"`
			} `json:"holders"`
			Waiters []struct {
				Owner, Session, Principal, Access, Comment string
				WaitedSeconds                              float64 `json:"waited_seconds"`
			} `json:"waiters"`
		} `json:"ids"`
	} `json:"hot"`
	Sessions *struct {
		All      bool `json:"all"`
		Sessions []struct {
			Session     string `json:"session"`
			Principal   string `json:"principal"`
			HiddenLocks int    `json:"hidden_locks"`
			Locks       []struct {
				Lock  string `json:"lock"`
				Token int64  `json:"token"`
				Items []struct{ ID, Access string }
			} `json:"locks"`
		} `json:"sessions"`
	} `json:"sessions"`
	Deadlocks []struct {
		At    time.Time `json:"at"`
		Cycle []struct{ Process, Waits, Access, Comment string }
	} `json:"deadlocks"`
	Charts []struct {
		Title string `json:"title"`
		Lines []struct {
			Mode   string    `json:"mode"`
			Values []float64 `json:"values"`
		} `json:"lines"`
	} `json:"charts"`
}

func getJSON(t *testing.T, base, path, bearer string) (int, viewJSON, string) {
	t.Helper()
	code, body := get(t, http.DefaultClient, base, path, bearer)
	var v viewJSON
	if code == http.StatusOK {
		require.NoError(t, json.Unmarshal([]byte(body), &v), body)
	}
	return code, v, body
}

// jsonFixture is a lockd with the view in phase new, a replica in new
// beside it (both block the move to combined), and, under ops's prefix a/: a held id with a
// waiter (comment "report run") and a broken deadlock ("job A", "job B");
// bee holds b/secret. The waiter waits until the test ends.
func jsonFixture(t *testing.T) *fixture {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: viewPrincipals(t)}, view: true,
		deadlock: &lockstep.DeadlockDetection{After: 100 * time.Millisecond, Every: 100 * time.Millisecond}})
	ctx := context.Background()
	replica, err := migration.New(f.store, migration.Static(lockstep.ModeNew), &migration.Options{ProcessID: "billing-7", Version: "v1.4.2", Separator: "/"})
	require.NoError(t, err)
	require.NoError(t, replica.Ready(ctx))
	t.Cleanup(func() { _ = replica.Close(context.Background()) })

	app, bee := f.client("connect", "tok-app", nil), f.client("connect", "tok-bee", nil)
	sa, sw, sb := open(t, app, 30*time.Second), open(t, app, 30*time.Second), open(t, bee, 30*time.Second)
	_, err = app.Lock(ctx, lockReq(sa, item("a/orders/7", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	_, err = bee.Lock(ctx, lockReq(sb, item("b/secret", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	wctx, cancel := context.WithCancel(ctx)
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		_, _ = app.Lock(wctx, withComment(lockReq(sw, item("a/orders/7", pb.Access_ACCESS_SHARED)), "report run"))
	}()
	t.Cleanup(func() { cancel(); <-waited })

	s1, s2 := open(t, app, 30*time.Second), open(t, app, 30*time.Second)
	_, err = app.Lock(ctx, lockReq(s1, item("a/x", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	_, err = app.Lock(ctx, lockReq(s2, item("a/y", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	first := make(chan error, 1)
	go func() {
		_, err := app.Lock(ctx, withComment(lockReq(s1, item("a/y", pb.Access_ACCESS_EXCLUSIVE)), "job A"))
		first <- err
	}()
	time.Sleep(300 * time.Millisecond) // s1's wait begins first: s2's is the victim
	_, err = app.Lock(ctx, withComment(lockReq(s2, item("a/x", pb.Access_ACCESS_EXCLUSIVE)), "job B"))
	requireRefusal(t, err, connect.CodeAborted, pb.LockError_REASON_DEADLOCK)
	_, err = app.UnlockAll(ctx, connect.NewRequest(&pb.UnlockAllRequest{SessionId: s2}))
	require.NoError(t, err)
	require.NoError(t, <-first)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, v, _ := getJSON(t, f.url, "/ui/api/hot", "tok-ops")
		if waiting(v, "a/orders/7", "report run") {
			break
		}
		require.False(t, time.Now().After(deadline), "the waiter never showed")
	}
	return f
}

func waiting(v viewJSON, id, comment string) bool {
	for _, h := range v.Hot.IDs {
		for _, w := range h.Waiters {
			if h.ID == id && w.Comment == comment {
				return true
			}
		}
	}
	return false
}

// The JSON is the value the page is rendered from: every id, session,
// lock, token, waiter, move, process, deadlock and chart in one is in the
// other, counted alike, and b/secret (outside ops's prefix a/) in neither.
func TestViewJSON_ShowsWhatThePageShows(t *testing.T) {
	f := jsonFixture(t)
	code, v, raw := getJSON(t, f.url, "/ui/api/all", "tok-ops")
	require.Equal(t, http.StatusOK, code, raw)
	code, page := get(t, http.DefaultClient, f.url, "/ui/", "tok-ops")
	require.Equal(t, http.StatusOK, code)
	text := html.UnescapeString(page)
	require.NotContains(t, raw, "b/secret")
	require.NotContains(t, text, "b/secret")
	has := func(s, what string) {
		t.Helper()
		require.NotEmpty(t, s, what)
		require.Contains(t, text, s, what)
	}
	count := func(re string) int { return len(regexp.MustCompile(re).FindAllString(page, -1)) }

	require.Equal(t, "ops", v.Principal)
	require.Equal(t, "new", v.Fleet.Phase)
	require.Equal(t, []string{"combined", "new"}, v.Fleet.Allows)
	has(v.Fleet.Description, "phase")
	require.Equal(t, count(`<tr data-process=`), len(v.Fleet.Processes))
	for _, p := range v.Fleet.Processes {
		has(`data-process="`+p.Process+`"`, "process")
		has(p.Version, "version")
	}
	require.Len(t, v.Fleet.Moves, 1)
	for _, m := range v.Fleet.Moves {
		has(`data-to="`+m.To+`"`, "move")
		has(m.Text, "move text")
		for _, b := range m.Blockers {
			require.Contains(t, m.Text, b)
		}
	}
	require.ElementsMatch(t, []string{"lockd-test", "billing-7"}, v.Fleet.Moves[0].Blockers, "the move to combined names the processes in the way")

	var ids []string
	waiters := 0
	for _, h := range v.Hot.IDs {
		ids = append(ids, h.ID)
		waiters += len(h.Waiters)
		for _, ho := range h.Holders {
			has("<code>"+ho.Owner+"</code>", "holder")
			if ho.Token != 0 {
				has(">"+strconv.FormatInt(ho.Token, 10)+"<", "token")
			}
			if ho.Session != "" {
				has(ho.Session+" "+ho.Lock, "holding session")
			}
		}
		for _, w := range h.Waiters {
			if w.Session != "" {
				has(w.Session+" ("+w.Principal+")", "waiting session")
			}
			if w.Comment != "" {
				has(w.Comment, "comment")
			}
		}
	}
	require.Equal(t, pageIDs(page, `data-id="([^"]*)"`), sorted(ids))
	require.Contains(t, ids, "a/orders/7")
	require.Equal(t, count(`<tr class="waiter">`), waiters)
	require.True(t, waiting(v, "a/orders/7", "report run"))

	var sessions []string
	for _, s := range v.Sessions.Sessions {
		sessions = append(sessions, s.Session)
		for _, l := range s.Locks {
			has("<code>"+l.Lock+"</code> "+l.Items[0].ID, "lock")
			if l.Token != 0 {
				has("token "+strconv.FormatInt(l.Token, 10), "lock token")
			}
		}
		if s.HiddenLocks > 0 {
			has(strconv.Itoa(s.HiddenLocks)+" lock(s) outside your prefixes", "hidden")
		}
	}
	require.True(t, v.Sessions.All)
	require.Equal(t, pageIDs(page, `data-session="([^"]*)"`), sorted(sessions))
	require.Len(t, sessions, 5, "app's four and bee's one")

	require.Len(t, v.Deadlocks, 1)
	require.Equal(t, count(`<article class="deadlock">`), len(v.Deadlocks))
	for _, m := range v.Deadlocks[0].Cycle {
		has(m.Comment, "deadlock comment")
		has("<code>"+m.Waits+"</code>", "deadlock id")
	}
	require.Len(t, v.Charts, 4)
	require.Equal(t, count(`<figure class="chart">`), len(v.Charts))
	for _, c := range v.Charts {
		has(c.Title, "chart")
		for _, l := range c.Lines {
			require.Len(t, l.Values, 299, "one value a second")
			has(`class="key `+l.Mode+`"`, "chart line")
		}
	}
}

func pageIDs(page, re string) []string {
	var out []string
	for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(page, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return sorted(out)
}

func sorted(s []string) []string {
	s = append([]string{}, s...)
	sort.Strings(s)
	return s
}

// Each panel's JSON carries that panel alone, lists as [] when empty.
func TestViewJSON_OnePanelEach(t *testing.T) {
	f := newFixture(t, fixtureOptions{view: true})
	for _, name := range []string{"fleet", "hot", "sessions", "deadlocks", "charts"} {
		code, body := get(t, http.DefaultClient, f.url, "/ui/api/"+name, "")
		require.Equal(t, http.StatusOK, code, body)
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(body), &m))
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		require.ElementsMatch(t, []string{"principal", "open", "at", name}, keys, name)
		require.NotContains(t, body, "null", name)
	}
	_, body := get(t, http.DefaultClient, f.url, "/ui/api/deadlocks", "")
	require.Contains(t, body, `"deadlocks":[]`)
}

// The JSON refuses as the page does, in Connect's error shape: 401 without
// a credential, 403 for an unknown token or a principal without the grant,
// 404 for no such panel; and ops's JSON holds no id outside a/.
func TestViewJSON_Refusals(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: viewPrincipals(t)}, view: true})
	for _, c := range []struct {
		path, bearer string
		status       int
		code, msg    string
	}{
		{"/ui/api/hot", "", http.StatusUnauthorized, "unauthenticated", `no credential: send the bearer token (or the client certificate) of a principal granted "web_view"`},
		{"/ui/api/all", "tok-app", http.StatusForbidden, "permission_denied", `principal "app" is not granted the web view: add "web_view": true to it in the principals file`},
		{"/ui/api/fleet", "not-a-token", http.StatusForbidden, "permission_denied", "bearer token not recognised"},
		{"/ui/api/nope", "tok-ops", http.StatusNotFound, "not_found", `no panel "nope": ask for fleet, hot, sessions, deadlocks, charts or all`},
	} {
		code, body := get(t, http.DefaultClient, f.url, c.path, c.bearer)
		require.Equal(t, c.status, code, "%s %s", c.path, c.bearer)
		var e struct{ Code, Message string }
		require.NoError(t, json.Unmarshal([]byte(body), &e), body)
		require.Equal(t, c.code, e.Code, body)
		require.Contains(t, e.Message, c.msg)
	}

	ctx := context.Background()
	bee := f.client("connect", "tok-bee", nil)
	sb := open(t, bee, 0)
	_, err := bee.Lock(ctx, lockReq(sb, item("b/secret", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	code, body := get(t, http.DefaultClient, f.url, "/ui/api/all", "tok-ops")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, sb, "ops lists bee's session (list_sessions)...")
	require.Contains(t, body, `"hidden_locks":1`, "...with its lock counted...")
	require.False(t, strings.Contains(body, "b/secret"), "...not shown")
}
