package lockd

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
)

// The web view's authentication. A browser cannot be made to send a bearer
// header with every request, so the view also takes a login cookie: its
// form takes a principal's token once (POST, from the view's own origin),
// checks it as every call's token is checked, and sets a cookie naming the
// principal, the login's expiry and an HMAC-SHA256, under a key the view
// draws at start, of the principal's name, expiry and the digest of the
// token it logged in with. The cookie holds no token. It is HttpOnly (no
// script reads it), SameSite=Strict (no other site's page sends it),
// Secure when lockd serves TLS, and scoped to ViewPath. Each request
// re-checks it against the principals of that moment: a reload that drops
// the token, the principal or its "web_view" grant ends the login.
// docs/security.md, "The web view", has the reasoning.

const viewCookie = "lockd_view"

// viewHandler is a page or panel of the view, for an authenticated and
// granted principal.
type viewHandler func(w http.ResponseWriter, r *http.Request, pr *Principal)

// refuser answers a request the view refuses: status 401 (no credential)
// or 403, msg what to fix.
type refuser func(w http.ResponseWriter, status int, msg string)

// granted authenticates the caller and checks its grant before h, a page
// or panel. A caller with no credential is sent the login form (401); a
// refused credential or a principal without "web_view" gets 403 with what to
// fix, and a Warn line.
func (v *view) granted(h viewHandler) http.Handler { return v.authorize(h, v.refusePage) }

// refusePage is granted's refuser: the login form or the refusal page.
func (v *view) refusePage(w http.ResponseWriter, status int, msg string) {
	if status == http.StatusUnauthorized {
		w.WriteHeader(http.StatusUnauthorized)
		v.render(w, "login", loginData{Message: "Log in with a principal's token: this lockd's view needs a principal granted \"web_view\"."})
		return
	}
	v.refuseView(w, msg)
}

// authorize is granted with the refusals answered by refuse, so that the
// pages and the JSON (viewjson.go) admit the same callers.
func (v *view) authorize(h viewHandler, refuse refuser) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ps := v.s.principals.Load()
		if ps == nil {
			h(w, r, anonymous)
			return
		}
		c := credentialsOf(r)
		pr, none, err := v.identifyViewer(r, ps, c)
		switch {
		case none:
			refuse(w, http.StatusUnauthorized, "no credential: send the bearer token (or the client certificate) of a principal granted \"web_view\"")
			return
		case err != nil:
			refuse(w, http.StatusForbidden, err.Error())
			return
		case !pr.WebView:
			_ = v.s.refuse(r.Context(), "WebView", pr.Name, "", viewDenied(pr))
			refuse(w, http.StatusForbidden, "principal "+quote(pr.Name)+" is not granted the web view: add \"web_view\": true to it in the principals file (and reload lockd with SIGHUP)")
			return
		}
		h(w, r, pr)
	})
}

// identifyViewer returns the principal of the request: by client
// certificate or bearer token as every call (Server.identify), else by the
// login cookie. none is true when the request carries no credential at all.
func (v *view) identifyViewer(r *http.Request, ps *Principals, c credentials) (pr *Principal, none bool, err error) {
	if c.cert != nil || c.hasBearer {
		pr, err := v.s.identify(r.Context(), ps, "WebView", c)
		if err != nil {
			return nil, false, err
		}
		return pr, false, nil
	}
	ck, cerr := r.Cookie(viewCookie)
	if cerr != nil {
		return nil, true, nil
	}
	if pr := v.checkCookie(ps, ck.Value); pr != nil {
		return pr, false, nil
	}
	return nil, false, v.s.refuse(r.Context(), "WebView", c.peer, "", unauthenticated("the login expired or its token is no longer in the principals file: log in again"))
}

func (v *view) refuseView(w http.ResponseWriter, msg string) {
	w.WriteHeader(http.StatusForbidden)
	v.render(w, "refused", loginData{Message: msg})
}

type loginData struct {
	Message string
	Open    bool
}

// loginForm serves the login form.
func (v *view) loginForm(w http.ResponseWriter, _ *http.Request) {
	v.render(w, "login", loginData{Open: v.s.principals.Load() == nil})
}

// login checks the posted token; with a principal granted the view it sets
// the login cookie and sends the browser to the page (303).
func (v *view) login(w http.ResponseWriter, r *http.Request) {
	ps := v.s.principals.Load()
	if ps == nil {
		http.Redirect(w, r, ViewPath, http.StatusSeeOther) // open mode: nothing to log in to
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	token := strings.TrimSpace(r.PostFormValue("token"))
	pr, ok := ps.byBearer(token)
	switch {
	case token == "":
		w.WriteHeader(http.StatusUnauthorized)
		v.render(w, "login", loginData{Message: "No token given: paste a principal's bearer token."})
		return
	case !ok:
		_ = v.s.refuse(r.Context(), "WebViewLogin", r.RemoteAddr, "", unauthenticated("bearer token not recognised"))
		w.WriteHeader(http.StatusUnauthorized)
		v.render(w, "login", loginData{Message: "Token not recognised: use a token whose SHA-256 is in lockd's principals file."})
		return
	case !pr.WebView:
		_ = v.s.refuse(r.Context(), "WebViewLogin", pr.Name, "", viewDenied(pr))
		v.refuseView(w, "principal "+quote(pr.Name)+" is not granted the web view: add \"web_view\": true to it in the principals file (and reload lockd with SIGHUP)")
		return
	}
	exp := time.Now().Add(v.opts.LoginTTL)
	http.SetCookie(w, &http.Cookie{Name: viewCookie, Value: v.signCookie(pr.Name, TokenDigest(token), exp), Path: ViewPath,
		Expires: exp, HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, ViewPath, http.StatusSeeOther)
}

// logout clears the login cookie.
func (v *view) logout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: viewCookie, Value: "", Path: ViewPath, MaxAge: -1, HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, ViewPath+"login", http.StatusSeeOther)
}

// signCookie returns the cookie value of a login: name, expiry (unix
// seconds) and the MAC of both with the token's digest, dot-separated, the
// name in base64url.
func (v *view) signCookie(name, digest string, exp time.Time) string {
	e := strconv.FormatInt(exp.Unix(), 10)
	return base64.RawURLEncoding.EncodeToString([]byte(name)) + "." + e + "." + base64.RawURLEncoding.EncodeToString(v.mac(name, e, digest))
}

func (v *view) mac(name, exp, digest string) []byte {
	m := hmac.New(sha256.New, v.key)
	m.Write([]byte(name + "\x00" + exp + "\x00" + strings.ToLower(strings.TrimSpace(digest))))
	return m.Sum(nil)
}

// checkCookie returns the principal a cookie value logs in, or nil: the
// cookie must be unexpired, and its MAC must match one of the principal's
// token digests now.
func (v *view) checkCookie(ps *Principals, value string) *Principal {
	parts := strings.Split(value, ".")
	if len(parts) != 3 {
		return nil
	}
	raw, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	exp, err2 := strconv.ParseInt(parts[1], 10, 64)
	sum, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || time.Now().Unix() >= exp {
		return nil
	}
	name := string(raw)
	for i := range ps.List {
		pr := &ps.List[i]
		if pr.Name != name {
			continue
		}
		for _, d := range pr.TokenSHA256 {
			if _, err := hex.DecodeString(strings.TrimSpace(d)); err == nil && hmac.Equal(sum, v.mac(name, parts[1], d)) {
				return pr
			}
		}
	}
	return nil
}

// viewDenied is the refusal logged for a principal without "web_view".
func viewDenied(pr *Principal) *rpcError {
	return &rpcError{code: connect.CodePermissionDenied, msg: "principal " + quote(pr.Name) + " is not granted the web view (\"web_view\")"}
}
