package lockd

import (
	"context"
	"crypto/x509"
	"net/http"
	"strings"

	"connectrpc.com/authn"
	"connectrpc.com/connect"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// credentials are what a request presented: its bearer token and its
// verified client certificate, if any, read from its headers and TLS state.
type credentials struct {
	bearer    string
	hasBearer bool
	cert      *x509.Certificate // the verified leaf; nil without one
	peer      string            // remote address, for logs
}

// credentialsOf reads r's credentials without touching its body.
func credentialsOf(r *http.Request) credentials {
	c := credentials{peer: r.RemoteAddr}
	if auth := r.Header.Get("Authorization"); auth != "" {
		scheme, token, _ := strings.Cut(auth, " ")
		if strings.EqualFold(scheme, "Bearer") {
			c.bearer, c.hasBearer = strings.TrimSpace(token), true
		} else {
			c.hasBearer = true // a malformed header is a bad credential, not none
		}
	}
	if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 {
		c.cert = r.TLS.VerifiedChains[0][0]
	}
	return c
}

// withAuthentication wraps h (the lock service and reflection) in
// connectrpc.com/authn's middleware: the caller's principal is decided from
// the request's headers and TLS state before any byte of its body is read,
// and a refusal is written in the protocol of the request (gRPC, gRPC-Web
// or Connect) without reading the body at all. The principal reaches the
// handlers through authn.GetInfo.
func (s *Server) withAuthentication(h http.Handler) http.Handler {
	return authn.NewMiddleware(s.authFunc).Wrap(h)
}

// authFunc is the authn.AuthFunc: the principal of r, or its refusal
// (counted in the metrics as the handler's answers are).
func (s *Server) authFunc(ctx context.Context, r *http.Request) (any, error) {
	ps := s.principals.Load()
	if ps == nil {
		return anonymous, nil
	}
	pr, err := s.identify(ctx, ps, method(r.URL.Path), credentialsOf(r))
	if err != nil {
		werr := wire(err)
		s.cfg.Metrics.answered(r.URL.Path, werr)
		return nil, werr
	}
	return pr, nil
}

// method is the last element of a procedure's path: "Lock" of
// "/lockstep.v1.LockService/Lock".
func method(procedure string) string { return procedure[strings.LastIndexByte(procedure, '/')+1:] }

// principalOf is the principal authFunc put in ctx, or nil.
func principalOf(ctx context.Context) *Principal {
	pr, _ := authn.GetInfo(ctx).(*Principal)
	return pr
}

// anonymous is the caller of a server without principals (open mode): it is
// granted every id.
var anonymous = &Principal{Name: "anonymous", Prefixes: []string{""}}

// authenticate returns the caller's principal, decided by authFunc before
// the request's body was read. A call that did not pass through Handler's
// authentication is refused.
func (s *Server) authenticate(ctx context.Context, rpc string) (*Principal, error) {
	if pr := principalOf(ctx); pr != nil {
		return pr, nil
	}
	return nil, s.refuse(ctx, rpc, "", "", unauthenticated("no credential was checked: serve the Server through its Handler"))
}

// identify returns the principal of c, or a refusal: no credential, an
// unknown token, a certificate naming no principal, or a token and a
// certificate naming two different principals.
func (s *Server) identify(ctx context.Context, ps *Principals, rpc string, c credentials) (*Principal, error) {
	var byCert, byToken *Principal
	if c.cert != nil {
		byCert = ps.principalOfCert(c.cert)
		if byCert == nil {
			return nil, s.refuse(ctx, rpc, c.peer, "", unauthenticated("client certificate %q names no principal: add one of its names to a principal's client_cert_names", c.cert.Subject.CommonName))
		}
	}
	if c.hasBearer {
		pr, ok := ps.byBearer(c.bearer)
		if !ok {
			return nil, s.refuse(ctx, rpc, c.peer, "", unauthenticated("bearer token not recognised: send Authorization: Bearer <token> with a token whose SHA-256 is in the principals file"))
		}
		byToken = pr
	}
	switch {
	case byCert != nil && byToken != nil && byCert != byToken:
		return nil, s.refuse(ctx, rpc, c.peer, "", unauthenticated("the client certificate is principal %q's and the bearer token principal %q's: present one identity", byCert.Name, byToken.Name))
	case byCert != nil:
		return byCert, nil
	case byToken != nil:
		return byToken, nil
	}
	return nil, s.refuse(ctx, rpc, c.peer, "", unauthenticated("no credential: send Authorization: Bearer <token>, or a client certificate over TLS"))
}

// principalOfCert returns the principal one of the certificate's names (its
// Common Name, then its DNS SANs) belongs to.
func (p *Principals) principalOfCert(cert *x509.Certificate) *Principal {
	for _, n := range append([]string{cert.Subject.CommonName}, cert.DNSNames...) {
		if pr, ok := p.byCert[n]; ok {
			return pr
		}
	}
	return nil
}

// checkPrefixes refuses the first id the principal is not granted. An id
// ending in "*" is checked as the mask it is under a separator: "a/b/*"
// names every child of "a/b", every id starting "a/b/", so that text, the id
// without its "*", must start with a granted prefix. The id's own text is
// not enough: a grant "a/*" (a literal prefix; grants have no patterns)
// covers the text "a/*", but the mask names "a/x" and "a/y/z", outside it.
// (Under no separator "*" is an ordinary character; the stricter check only
// refuses such an id to a principal whose prefix ends with its "*".)
func (s *Server) checkPrefixes(ctx context.Context, rpc string, pr *Principal, ids []string) error {
	for _, id := range ids {
		if mask, ok := strings.CutSuffix(id, "*"); ok && !pr.grants(mask) {
			return s.refuse(ctx, rpc, pr.Name, "", &rpcError{code: connect.CodePermissionDenied, reason: pb.LockError_REASON_NO_PREFIX, id: id,
				msg: "principal " + quote(pr.Name) + " is not granted mask " + quote(id) + ": it names every id starting " + quote(mask) +
					", and not all of them are under its prefixes (" + strings.Join(quoteAll(pr.Prefixes), ", ") + "): mask a node under a granted prefix, or grant " + quote(mask)})
		}
		if !pr.grants(id) {
			return s.refuse(ctx, rpc, pr.Name, "", &rpcError{code: connect.CodePermissionDenied, reason: pb.LockError_REASON_NO_PREFIX, id: id,
				msg: "principal " + quote(pr.Name) + " is not granted id " + quote(id) + " (its prefixes: " + strings.Join(quoteAll(pr.Prefixes), ", ") + "): lock ids under a granted prefix, or grant the prefix in the principals file"})
		}
	}
	return nil
}

// refuse logs a refusal at Warn and returns it.
func (s *Server) refuse(_ context.Context, rpc, who, session string, err *rpcError) error {
	s.log.Warn("lockd: refused", "rpc", rpc, "who", who, "session", session, "reason", err.reason.String(), "error", err.msg)
	return err
}
