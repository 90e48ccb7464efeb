package lockd_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// viewPrincipals: ops sees the view and ids under a/ only (and every
// session, list_sessions); app may lock but not see the view; bee locks
// under b/.
func viewPrincipals(t *testing.T) *lockd.Principals {
	t.Helper()
	doc := fmt.Sprintf(`{"principals": [
		{"name": "ops", "token_sha256": [%q], "prefixes": ["a/"], "web_view": true, "list_sessions": true},
		{"name": "app", "token_sha256": [%q], "prefixes": ["a/"]},
		{"name": "bee", "token_sha256": [%q], "prefixes": ["b/"]}
	]}`, lockd.TokenDigest("tok-ops"), lockd.TokenDigest("tok-app"), lockd.TokenDigest("tok-bee"))
	p, err := lockd.ParsePrincipals([]byte(doc))
	require.NoError(t, err)
	return p
}

// get fetches path from the fixture with the bearer token (if any) and
// returns the status and body.
func get(t *testing.T, c *http.Client, base, path, bearer string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", base+path, nil)
	require.NoError(t, err)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	res, err := c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

func TestView_RefusesEveryPageAndPanelWithoutTheGrant(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: viewPrincipals(t)}, view: true})
	c := http.DefaultClient
	for _, path := range []string{"/ui/", "/ui/panel/fleet", "/ui/panel/hot", "/ui/panel/sessions", "/ui/panel/deadlocks", "/ui/panel/charts"} {
		code, body := get(t, c, f.url, path, "tok-app")
		require.Equal(t, http.StatusForbidden, code, path)
		require.Contains(t, body, `principal &#34;app&#34; is not granted the web view: add &#34;web_view&#34;: true`, path)
		code, body = get(t, c, f.url, path, "")
		require.Equal(t, http.StatusUnauthorized, code, path)
		require.Contains(t, body, `action="/ui/login"`, path)
		code, _ = get(t, c, f.url, path, "not-a-token")
		require.Equal(t, http.StatusForbidden, code, path)
		code, _ = get(t, c, f.url, path, "tok-ops")
		require.Equal(t, http.StatusOK, code, path)
	}
	require.Contains(t, f.logs.String(), "WebView")
	code, _ := get(t, c, f.url, "/ui/panel/nope", "tok-ops")
	require.Equal(t, http.StatusNotFound, code)
}

// login posts a token to the login form, as the browser does, from the
// view's own origin, and returns the answer (redirects not followed).
func login(t *testing.T, c *http.Client, base, token string, headers map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", base+"/ui/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

func TestView_LoginSetsAStrictHttpOnlyCookieThatTheNextReloadCanEnd(t *testing.T) {
	ps := viewPrincipals(t)
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: ps}, view: true})
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c := &http.Client{Jar: jar, CheckRedirect: noRedirect}

	res := login(t, c, f.url, "tok-app", map[string]string{"Sec-Fetch-Site": "same-origin"})
	require.Equal(t, http.StatusForbidden, res.StatusCode, "a principal without the grant gets no cookie")
	require.Empty(t, res.Cookies())
	res = login(t, c, f.url, "wrong", nil)
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	require.Empty(t, res.Cookies())
	res = login(t, c, f.url, "tok-ops", map[string]string{"Sec-Fetch-Site": "cross-site"})
	require.Equal(t, http.StatusForbidden, res.StatusCode, "another site's form cannot log a browser in")
	require.Empty(t, res.Cookies())

	res = login(t, c, f.url, "tok-ops", map[string]string{"Sec-Fetch-Site": "same-origin"})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Len(t, res.Cookies(), 1)
	ck := res.Cookies()[0]
	require.True(t, ck.HttpOnly)
	require.Equal(t, http.SameSiteStrictMode, ck.SameSite)
	require.Equal(t, "/ui/", ck.Path)
	require.False(t, ck.Secure, "cleartext lockd: Secure would keep the browser from sending it")
	require.NotContains(t, ck.Value, "tok-ops")
	require.NotContains(t, ck.Value, lockd.TokenDigest("tok-ops"))
	code, body := get(t, c, f.url, "/ui/", "")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `<b id="principal">ops</b>`)

	// A cookie whose name or MAC was changed logs nobody in.
	name, rest, _ := strings.Cut(ck.Value, ".")
	for _, forged := range []string{"YXBw." + rest, name + ".9999999999." + strings.SplitN(rest, ".", 2)[1], ck.Value + "x", "garbage"} {
		bare := &http.Client{}
		req, _ := http.NewRequest("GET", f.url+"/ui/", nil)
		req.AddCookie(&http.Cookie{Name: ck.Name, Value: forged})
		res, err := bare.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusForbidden, res.StatusCode, forged)
	}

	// A reload of the principals without ops's token ends the login.
	doc := fmt.Sprintf(`{"principals": [{"name": "ops", "token_sha256": [%q], "prefixes": ["a/"], "web_view": true}]}`, lockd.TokenDigest("tok-new"))
	p2, err := lockd.ParsePrincipals([]byte(doc))
	require.NoError(t, err)
	require.NoError(t, f.server.SetPrincipals(p2))
	code, _ = get(t, c, f.url, "/ui/", "")
	require.Equal(t, http.StatusForbidden, code)
}

func TestView_APrincipalSeesNoIDOutsideItsPrefixes(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: viewPrincipals(t)}, view: true})
	ctx := context.Background()
	app, bee := f.client("connect", "tok-app", nil), f.client("connect", "tok-bee", nil)
	sa, sb := open(t, app, 0), open(t, bee, 0)
	_, err := app.Lock(ctx, lockReq(sa, item("a/visible", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	_, err = bee.Lock(ctx, lockReq(sb, item("b/secret", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)

	code, page := get(t, http.DefaultClient, f.url, "/ui/", "tok-ops")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, page, `data-id="a/visible"`)
	require.Contains(t, page, sb, "ops lists every session (list_sessions)...")
	require.Contains(t, page, "1 lock(s) outside your prefixes", "...but not the ids of bee's locks")
	require.NotContains(t, page, "b/secret")
	require.NotContains(t, page, `data-id="b`)
	for _, panel := range []string{"hot", "sessions", "deadlocks"} {
		_, body := get(t, http.DefaultClient, f.url, "/ui/panel/"+panel, "tok-ops")
		require.NotContains(t, body, "b/secret", panel)
	}
}

func TestView_PageNamesThePhaseTheBlockerAndTheHolder(t *testing.T) {
	f := newFixture(t, fixtureOptions{view: true})
	ctx := context.Background()
	c := f.client("connect", "", nil)
	s := open(t, c, 0)
	res, err := c.Lock(ctx, lockReq(s, item("invoice-42", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	code, page := get(t, http.DefaultClient, f.url, "/ui/", "")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, page, `new (processes may take locks in: combined, new)`)
	require.Contains(t, page, `moving to <b>combined</b>: <span class="refusal">migration: phase move new -&gt; combined refused: 1 live process(es) use a mode phase combined forbids`)
	require.Contains(t, page, "lockd-test on ")
	require.Contains(t, page, `data-id="invoice-42"`)
	require.Contains(t, page, fmt.Sprint(res.Msg.Lock.Token), "the holder's fencing token")
	require.Contains(t, page, s)
}

func TestView_RefusesOptionsWithoutStoreOrRecorder(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	_, err := f.server.View(nil)
	require.ErrorContains(t, err, "ViewOptions.Store")
	_, err = f.server.View(&lockd.ViewOptions{Store: f.store})
	require.ErrorContains(t, err, "ViewOptions.Recorder")
	_, err = f.server.View(&lockd.ViewOptions{Store: f.store, Recorder: lockd.NewRecorder(nil), Refresh: 10})
	require.ErrorContains(t, err, "ViewOptions.Refresh")
	_, err = f.server.View(&lockd.ViewOptions{Store: f.store, Recorder: lockd.NewRecorder(nil), Hottest: 1000})
	require.ErrorContains(t, err, "ViewOptions.Hottest")
}

// writeCounter counts the writes that reach a Store.
type writeCounter struct {
	lockstep.Store
	n atomic.Int64
}

func (w *writeCounter) Put(ctx context.Context, table, row string, cells ...lockstep.Cell) error {
	w.n.Add(1)
	return w.Store.Put(ctx, table, row, cells...)
}

func (w *writeCounter) Delete(ctx context.Context, table, row string, ts int64, columns ...string) error {
	w.n.Add(1)
	return w.Store.Delete(ctx, table, row, ts, columns...)
}

func TestView_SendsNoWriteToTheStore(t *testing.T) {
	f := newFixture(t, fixtureOptions{view: true})
	ctx := context.Background()
	c := f.client("connect", "", nil)
	s := open(t, c, 0)
	_, err := c.Lock(ctx, lockReq(s, item("invoice-42", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	w := &writeCounter{Store: f.store}
	rec := lockd.NewRecorder(nil)
	rec.ObserveAcquire(ctx, lockstep.AcquireEvent{ID: "invoice-42", Acquired: true, Mode: lockstep.ModeNew})
	v, err := f.server.View(&lockd.ViewOptions{Store: w, Recorder: rec})
	require.NoError(t, err)
	srv := httptest.NewServer(v)
	defer srv.Close()
	for _, path := range []string{"/ui/", "/ui/panel/fleet", "/ui/panel/hot", "/ui/panel/sessions", "/ui/api/all"} {
		code, body := get(t, srv.Client(), srv.URL, path, "")
		require.Equal(t, http.StatusOK, code)
		require.NotContains(t, body, `class="error"`, path)
		require.NotContains(t, body, `"error"`, path)
	}
	require.Zero(t, w.n.Load(), "the view wrote to the store")
}
