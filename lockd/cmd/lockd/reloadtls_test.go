package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/stretchr/testify/require"

	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1/lockstepv1connect"
)

// writeCert writes a self-signed certificate for 127.0.0.1 with serial to
// certFile and its key to keyFile.
func writeCert(t *testing.T, serial int64, certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "lockd"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	kder, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600))
}

// servedSerial is the serial of the certificate a new TLS handshake gets.
func servedSerial(t *testing.T, addr string) int64 {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // the test reads the served certificate
	require.NoError(t, err)
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
}

// SIGHUP reloads the server certificate: new handshakes get the new one,
// an open connection and a session go on; a broken key keeps the old.
func TestBinary_SIGHUPReloadsTheServerCertificate(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeCert(t, 1, certFile, keyFile)
	p := startBinary(t, "--server-cert", certFile, "--server-key", keyFile, "--log-level", "info")
	addr := strings.TrimPrefix(p.url, "https://")
	require.Equal(t, int64(1), servedSerial(t, addr))

	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // self-signed, test only
	defer tr.CloseIdleConnections()
	c := lockstepv1connect.NewLockServiceClient(&http.Client{Transport: tr}, p.url)
	s, err := c.OpenSession(t.Context(), connect.NewRequest(&pb.OpenSessionRequest{}))
	require.NoError(t, err)

	writeCert(t, 2, certFile, keyFile)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGHUP))
	p.waitLog(t, "lockd: credentials reloaded")
	require.Equal(t, int64(2), servedSerial(t, addr), "a new handshake gets the new certificate")
	_, err = c.KeepAlive(t.Context(), connect.NewRequest(&pb.KeepAliveRequest{SessionId: s.Msg.SessionId}))
	require.NoError(t, err, "the session, over its open connection, goes on")
	h2 := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true} //nolint:gosec // as above
	defer h2.CloseIdleConnections()
	_, err = lockstepv1connect.NewLockServiceClient(&http.Client{Transport: h2}, p.url, connect.WithGRPC()).
		KeepAlive(t.Context(), connect.NewRequest(&pb.KeepAliveRequest{SessionId: s.Msg.SessionId}))
	require.NoError(t, err, "gRPC over TLS (HTTP/2 by ALPN) with the reloaded certificate")

	require.NoError(t, os.WriteFile(keyFile, []byte("not a key"), 0o600))
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGHUP))
	p.waitLog(t, "lockd: reload failed; the credentials in use are kept")
	require.Equal(t, int64(2), servedSerial(t, addr), "a broken key keeps the certificate in use")
}
