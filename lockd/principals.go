package lockd

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Principal is one caller the server knows, with the lock id prefixes it is
// granted. A principal may lock only ids that start with one of its
// prefixes, and may use, inspect and unlock only the sessions it opened.
type Principal struct {
	// Name identifies the principal in logs, DescribeSession and errors.
	Name string `json:"name"`
	// TokenSHA256 are the hex SHA-256 digests of the bearer tokens that
	// authenticate as this principal (Authorization: Bearer <token>). The
	// file holds digests, never tokens: `printf %s "$TOKEN" | sha256sum`.
	TokenSHA256 []string `json:"token_sha256,omitempty"`
	// ClientCertNames are names a verified client certificate may carry, in
	// its Subject Common Name or a DNS SAN, to authenticate as this
	// principal (mTLS).
	ClientCertNames []string `json:"client_cert_names,omitempty"`
	// Prefixes are the id prefixes granted, compared bytewise: end each
	// with the server's separator ("billing/") so that "billing" does not
	// also grant "billingx". "" grants every id.
	Prefixes []string `json:"prefixes"`
	// ListSessions lets the principal list every live session of the
	// server, other principals' included (ListSessions; lockctl sessions):
	// for operators. It grants no id and no use of those sessions.
	ListSessions bool `json:"list_sessions,omitempty"`
	// WebView lets the principal see lockd's web view (--ui; Server.View):
	// the fleet's phase and census, and of the hottest ids, sessions and
	// deadlock reports only those under its own prefixes. It grants no id
	// and no use of any session.
	WebView bool `json:"web_view,omitempty"`
	// AdoptFrom names the principals whose identities this one may adopt
	// (SetToken with a token their sessions' GetToken returned). Without
	// it a principal adopts only its own. Adopting grants the identity's
	// locks, whatever their ids: their handles may then be unlocked by
	// this principal's session; new Locks are still checked against this
	// principal's own prefixes.
	AdoptFrom []string `json:"adopt_from,omitempty"`
}

// Principals is the server's table of callers, usually read from a JSON file
// (LoadPrincipals):
//
//	{"principals": [
//	  {"name": "billing", "token_sha256": ["9f86d0…"], "prefixes": ["billing/"]},
//	  {"name": "reports", "client_cert_names": ["reports.internal"], "prefixes": ["billing/", "reports/"]},
//	  {"name": "ops", "token_sha256": ["2c26b4…"], "prefixes": ["ops/"], "list_sessions": true}
//	]}
//
// It is read-only after ParsePrincipals, so safe for concurrent use.
type Principals struct {
	List []Principal `json:"principals"`

	byToken map[[sha256.Size]byte]*Principal
	byCert  map[string]*Principal
}

// LoadPrincipals reads and checks the principals file at path.
func LoadPrincipals(path string) (*Principals, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("principals file: %w", err)
	}
	p, err := ParsePrincipals(b)
	if err != nil {
		return nil, fmt.Errorf("principals file %s: %w", path, err)
	}
	return p, nil
}

// ParsePrincipals parses and checks a principals document: every principal
// has a unique name, at least one credential and one prefix; no token digest
// or certificate name belongs to two principals.
func ParsePrincipals(doc []byte) (*Principals, error) {
	var p Principals
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w (want {\"principals\": [{\"name\", \"token_sha256\" or \"client_cert_names\", \"prefixes\"}]})", err)
	}
	if len(p.List) == 0 {
		return nil, fmt.Errorf("no principals: list at least one, or run without --principals (open mode, loopback only)")
	}
	p.byToken = make(map[[sha256.Size]byte]*Principal)
	p.byCert = make(map[string]*Principal)
	names := make(map[string]bool)
	for i := range p.List {
		pr := &p.List[i]
		if err := p.index(pr, names); err != nil {
			return nil, fmt.Errorf("principal %d (%q): %w", i+1, pr.Name, err)
		}
	}
	for i, pr := range p.List {
		for _, n := range pr.AdoptFrom {
			if !names[n] || n == pr.Name {
				return nil, fmt.Errorf("principal %d (%q): adopt_from %q is not another principal of the file: name principals listed in it (a principal always adopts its own)", i+1, pr.Name, n)
			}
		}
	}
	return &p, nil
}

// index checks one principal and adds its credentials to the lookup maps.
func (p *Principals) index(pr *Principal, names map[string]bool) error {
	switch {
	case pr.Name == "":
		return fmt.Errorf("no name: give each principal a \"name\"")
	case names[pr.Name]:
		return fmt.Errorf("name used twice: names must be unique")
	case len(pr.TokenSHA256) == 0 && len(pr.ClientCertNames) == 0:
		return fmt.Errorf("no credential: give \"token_sha256\" (hex SHA-256 of a bearer token) or \"client_cert_names\"")
	case len(pr.Prefixes) == 0:
		return fmt.Errorf("no prefixes: grant at least one id prefix (\"\" grants every id)")
	}
	names[pr.Name] = true
	for _, h := range pr.TokenSHA256 {
		raw, err := hex.DecodeString(strings.TrimSpace(h))
		if err != nil || len(raw) != sha256.Size {
			return fmt.Errorf("token_sha256 %q is not 64 hex digits: store the token's SHA-256 (printf %%s \"$TOKEN\" | sha256sum), not the token", h)
		}
		key := [sha256.Size]byte(raw)
		if other, ok := p.byToken[key]; ok {
			return fmt.Errorf("a token digest is also principal %q's: each token belongs to one principal", other.Name)
		}
		p.byToken[key] = pr
	}
	for _, n := range pr.ClientCertNames {
		if other, ok := p.byCert[n]; ok {
			return fmt.Errorf("client certificate name %q is also principal %q's: each name belongs to one principal", n, other.Name)
		}
		p.byCert[n] = pr
	}
	return nil
}

// byBearer returns the principal of a bearer token. The digest's lookup in a
// map does not leak the token through timing: only its SHA-256 is compared,
// and a final constant-time comparison confirms the hit.
func (p *Principals) byBearer(token string) (*Principal, bool) {
	sum := sha256.Sum256([]byte(token))
	pr, ok := p.byToken[sum]
	if !ok {
		return nil, false
	}
	for _, h := range pr.TokenSHA256 {
		raw, _ := hex.DecodeString(strings.TrimSpace(h))
		if subtle.ConstantTimeCompare(raw, sum[:]) == 1 {
			return pr, true
		}
	}
	return nil, false
}

// grants returns whether the principal may lock id.
func (pr *Principal) grants(id string) bool {
	for _, p := range pr.Prefixes {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// TokenDigest returns the hex SHA-256 of token: the form a principals file
// stores it in.
func TokenDigest(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
