package lockd_test

import (
	"net/http"
	"testing"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/lockstep-go/lockstep/lockd"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// reflectionStream opens a gRPC server reflection stream to the fixture
// over h2c, as grpcurl does, with the bearer token if any.
func reflectionStream(t *testing.T, f *fixture, token string) *grpcreflect.ClientStream {
	t.Helper()
	protocols := new(http.Protocols)
	protocols.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: protocols}
	t.Cleanup(tr.CloseIdleConnections)
	c := grpcreflect.NewClient(&http.Client{Transport: tr}, f.url, connect.WithGRPC())
	var opts []grpcreflect.ClientStreamOption
	if token != "" {
		opts = append(opts, grpcreflect.WithRequestHeaders(http.Header{"Authorization": {"Bearer " + token}}))
	}
	s := c.NewStream(t.Context(), opts...)
	t.Cleanup(func() { _, _ = s.Close() })
	return s
}

// requireDescribesLockService checks that reflection lists the lock
// service and describes it, methods included, without any proto file.
func requireDescribesLockService(t *testing.T, s *grpcreflect.ClientStream) {
	t.Helper()
	names, err := s.ListServices()
	require.NoError(t, err)
	require.Contains(t, names, protoreflect.FullName(lockstepv1connect.LockServiceName))
	files, err := s.FileContainingSymbol(lockstepv1connect.LockServiceName)
	require.NoError(t, err)
	var methods []string
	for _, f := range files {
		for _, svc := range f.GetService() {
			if svc.GetName() == "LockService" {
				for _, m := range svc.GetMethod() {
					methods = append(methods, m.GetName())
				}
			}
		}
	}
	require.Contains(t, methods, "Lock")
	require.Contains(t, methods, "OpenSession")
}

// In open mode anyone may reflect, as anyone may call.
func TestReflection_ListsTheLockServiceInOpenMode(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	requireDescribesLockService(t, reflectionStream(t, f, ""))
}

// With principals, reflection takes the same credentials as the lock
// service (any principal; it grants no id).
func TestReflection_NeedsACredentialWithPrincipals(t *testing.T) {
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: testPrincipals(t)}})
	for _, token := range []string{"", "tok-wrong"} {
		_, err := reflectionStream(t, f, token).ListServices()
		require.Equal(t, connect.CodeUnauthenticated, connect.CodeOf(err), "token %q: %v", token, err)
	}
	requireDescribesLockService(t, reflectionStream(t, f, "tok-reports"))
}
