package lockd_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/lockd"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// testPrincipals: billing by token, reports by token or client certificate.
func testPrincipals(t *testing.T) *lockd.Principals {
	t.Helper()
	doc := fmt.Sprintf(`{"principals": [
		{"name": "billing", "token_sha256": [%q], "prefixes": ["billing/"]},
		{"name": "reports", "token_sha256": [%q], "client_cert_names": ["reports.internal"], "prefixes": ["reports/", "shared/"]}
	]}`, lockd.TokenDigest("tok-billing"), lockd.TokenDigest("tok-reports"))
	p, err := lockd.ParsePrincipals([]byte(doc))
	require.NoError(t, err)
	return p
}

// refusedLogged checks that the server logged a refusal with reason.
func refusedLogged(t *testing.T, f *fixture, reason pb.LockError_Reason) {
	t.Helper()
	for _, line := range strings.Split(f.logs.String(), "\n") {
		if strings.Contains(line, "lockd: refused") && strings.Contains(line, reason.String()) {
			return
		}
	}
	t.Fatalf("no refusal with reason %v logged:\n%s", reason, f.logs.String())
}

func TestSecurity_BadTokenIsUnauthenticated(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: testPrincipals(t)}})
	_, err := f.client("grpc", "tok-wrong", nil).OpenSession(context.Background(), connect.NewRequest(&pb.OpenSessionRequest{}))
	requireRefusal(t, err, connect.CodeUnauthenticated, pb.LockError_REASON_UNAUTHENTICATED)
	require.Contains(t, err.Error(), "bearer token not recognised")
	refusedLogged(t, f, pb.LockError_REASON_UNAUTHENTICATED)
}

func TestSecurity_NoCredentialIsUnauthenticated(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: testPrincipals(t)}})
	_, err := f.client("json", "", nil).OpenSession(context.Background(), connect.NewRequest(&pb.OpenSessionRequest{}))
	requireRefusal(t, err, connect.CodeUnauthenticated, pb.LockError_REASON_UNAUTHENTICATED)
	require.Contains(t, err.Error(), "no credential")
	refusedLogged(t, f, pb.LockError_REASON_UNAUTHENTICATED)
}

// A principal may lock only ids under its prefixes, alone or in a group.
func TestSecurity_IDOutsideThePrefixesIsPermissionDenied(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: testPrincipals(t)}})
	c := f.client("connect", "tok-billing", nil)
	s := open(t, c, 0)
	ctx := context.Background()
	for _, items := range [][]*pb.LockItem{
		{item("reports/1", pb.Access_ACCESS_EXCLUSIVE)},
		{item("billing/1", pb.Access_ACCESS_EXCLUSIVE), item("shared/1", pb.Access_ACCESS_SHARED)},
		{item("billingx", pb.Access_ACCESS_EXCLUSIVE)},
	} {
		_, err := c.TryLock(ctx, lockReq(s, items...))
		le := requireRefusal(t, err, connect.CodePermissionDenied, pb.LockError_REASON_NO_PREFIX)
		require.NotEmpty(t, le.Id)
		_, err = c.Lock(ctx, lockReq(s, items...))
		requireRefusal(t, err, connect.CodePermissionDenied, pb.LockError_REASON_NO_PREFIX)
	}
	_, err := c.Lock(ctx, lockReq(s, item("billing/1", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err, "its own prefix is granted")
	refusedLogged(t, f, pb.LockError_REASON_NO_PREFIX)
}

// No principal may use, inspect, keep alive, watch, unlock in or close
// another's session; the owner's lock survives every attempt.
func TestSecurity_AnotherPrincipalsSessionIsPermissionDenied(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: testPrincipals(t)}})
	owner, other := f.client("connect", "tok-billing", nil), f.client("grpc", "tok-reports", nil)
	s := open(t, owner, 0)
	ctx := context.Background()
	held, err := owner.Lock(ctx, lockReq(s, item("billing/9", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)

	attempts := map[string]func() error{
		"Unlock": func() error {
			_, err := other.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: s, LockId: held.Msg.Lock.LockId}))
			return err
		},
		"Lock": func() error {
			_, err := other.Lock(ctx, lockReq(s, item("reports/1", pb.Access_ACCESS_EXCLUSIVE)))
			return err
		},
		"TryLock": func() error {
			_, err := other.TryLock(ctx, lockReq(s, item("reports/1", pb.Access_ACCESS_EXCLUSIVE)))
			return err
		},
		"DescribeSession": func() error {
			_, err := other.DescribeSession(ctx, connect.NewRequest(&pb.DescribeSessionRequest{SessionId: s}))
			return err
		},
		"KeepAlive": func() error {
			_, err := other.KeepAlive(ctx, connect.NewRequest(&pb.KeepAliveRequest{SessionId: s}))
			return err
		},
		"CloseSession": func() error {
			_, err := other.CloseSession(ctx, connect.NewRequest(&pb.CloseSessionRequest{SessionId: s}))
			return err
		},
		"WatchSession": func() error {
			st, err := other.WatchSession(ctx, connect.NewRequest(&pb.WatchSessionRequest{SessionId: s}))
			if err != nil {
				return err
			}
			defer st.Close()
			if st.Receive() {
				return fmt.Errorf("received %v", st.Msg())
			}
			return st.Err()
		},
	}
	for name, try := range attempts {
		t.Run(name, func(t *testing.T) {
			requireRefusal(t, try(), connect.CodePermissionDenied, pb.LockError_REASON_NOT_YOUR_SESSION)
		})
	}
	d, err := owner.DescribeSession(ctx, connect.NewRequest(&pb.DescribeSessionRequest{SessionId: s}))
	require.NoError(t, err)
	require.Len(t, d.Msg.Locks, 1, "the owner's lock survived")
	refusedLogged(t, f, pb.LockError_REASON_NOT_YOUR_SESSION)
}

// With mTLS required, a client without a certificate is refused in the
// handshake, and the server logs it; a certificate names its principal.
func TestSecurity_MTLSRequiredRefusesAClientWithoutCertificate(t *testing.T) {
	pki := newTestPKI(t)
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: testPrincipals(t)}, tls: pki.serverConfig(true)})
	ctx := context.Background()

	_, err := f.client("grpc", "tok-reports", pki.clientConfig()).OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{}))
	// TLS 1.3 lets the client finish its side of the handshake before the
	// server refuses, so the client's error text varies ("certificate
	// required", "client conn could not be established"); the server's log
	// says why.
	require.Error(t, err, "no client certificate: refused in the handshake, even with a valid token")
	require.Eventually(t, func() bool { return strings.Contains(f.logs.String(), "didn't provide a certificate") },
		5*time.Second, 10*time.Millisecond, "the refused handshake is logged: %s", f.logs.String())

	other := newTestPKI(t) // a certificate from a CA the server does not trust
	_, err = f.client("connect", "", pki.clientConfig(other.client("reports.internal"))).OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{}))
	require.Error(t, err, "a certificate of an unknown CA is refused")

	c := f.client("grpc", "", pki.clientConfig(pki.client("reports.internal")))
	s := open(t, c, 0)
	d, err := c.DescribeSession(ctx, connect.NewRequest(&pb.DescribeSessionRequest{SessionId: s}))
	require.NoError(t, err)
	require.Equal(t, "reports", d.Msg.Principal)
}

// A verified certificate naming no principal, or one principal's
// certificate with another's token, is Unauthenticated.
func TestSecurity_CertificateOfNoPrincipalOrTwoIdentitiesIsUnauthenticated(t *testing.T) {
	pki := newTestPKI(t)
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: testPrincipals(t)}, tls: pki.serverConfig(false)})
	ctx := context.Background()
	for name, c := range map[string]lockstepv1connect.LockServiceClient{
		"unknown name":   f.client("connect", "", pki.clientConfig(pki.client("stranger"))),
		"two identities": f.client("connect", "tok-billing", pki.clientConfig(pki.client("reports.internal"))),
	} {
		_, err := c.OpenSession(ctx, connect.NewRequest(&pb.OpenSessionRequest{}))
		requireRefusal(t, err, connect.CodeUnauthenticated, pb.LockError_REASON_UNAUTHENTICATED)
		t.Log(name, err)
	}
	refusedLogged(t, f, pb.LockError_REASON_UNAUTHENTICATED)
}

// The principals file is checked: bad documents are refused with what to
// fix.
func TestParsePrincipals_RefusesBadDocuments(t *testing.T) {
	digest := lockd.TokenDigest("x")
	for doc, want := range map[string]string{
		`{}`: "no principals",
		`{"principals": [{"name": "a", "prefixes": ["a/"]}]}`:                                                                                                        "no credential",
		`{"principals": [{"name": "a", "token_sha256": ["` + digest + `"]}]}`:                                                                                        "no prefixes",
		`{"principals": [{"name": "a", "token_sha256": ["secret"], "prefixes": [""]}]}`:                                                                              "not 64 hex digits",
		`{"principals": [{"token_sha256": ["` + digest + `"], "prefixes": [""]}]}`:                                                                                   "no name",
		`{"principals": [{"name": "a", "tokens": ["x"], "prefixes": [""]}]}`:                                                                                         "unknown field",
		`{"principals": [{"name": "a", "token_sha256": ["` + digest + `"], "prefixes": [""]}, {"name": "b", "token_sha256": ["` + digest + `"], "prefixes": [""]}]}`: "also principal",
	} {
		_, err := lockd.ParsePrincipals([]byte(doc))
		require.ErrorContains(t, err, want, doc)
	}
}
