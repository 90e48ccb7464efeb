package lockd

import (
	"context"
	"crypto/x509"
	"net/http"
	"strings"

	"connectrpc.com/connect"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
)

// credentials are what a request presented: its bearer token and its
// verified client certificate, if any. The HTTP layer (withCredentials)
// puts them in the request's context; the handlers decide (authenticate).
type credentials struct {
	bearer    string
	hasBearer bool
	cert      *x509.Certificate // the verified leaf; nil without one
	peer      string            // remote address, for logs
}

type credentialsKey struct{}

// withCredentials wraps h so that each request's context carries its
// credentials. It decides nothing: a request without credentials passes on,
// to be refused by the handler with a status the client's protocol carries.
func withCredentials(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), credentialsKey{}, c)))
	})
}

// anonymous is the caller of a server without principals (open mode): it is
// granted every id.
var anonymous = &Principal{Name: "anonymous", Prefixes: []string{""}}

// authenticate returns the caller's principal, or a refusal: no credential,
// an unknown token, a certificate naming no principal, or a token and a
// certificate naming two different principals.
func (s *Server) authenticate(ctx context.Context, rpc string) (*Principal, error) {
	if s.principals == nil {
		return anonymous, nil
	}
	c, _ := ctx.Value(credentialsKey{}).(credentials)
	var byCert, byToken *Principal
	if c.cert != nil {
		byCert = s.principalOfCert(c.cert)
		if byCert == nil {
			return nil, s.refuse(ctx, rpc, c.peer, "", unauthenticated("client certificate %q names no principal: add one of its names to a principal's client_cert_names", c.cert.Subject.CommonName))
		}
	}
	if c.hasBearer {
		pr, ok := s.principals.byBearer(c.bearer)
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
func (s *Server) principalOfCert(cert *x509.Certificate) *Principal {
	for _, n := range append([]string{cert.Subject.CommonName}, cert.DNSNames...) {
		if pr, ok := s.principals.byCert[n]; ok {
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
