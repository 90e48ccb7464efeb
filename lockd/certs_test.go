package lockd_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"testing"
	"time"
)

// testPKI is a throwaway CA made at test time (never written to the
// repository), the server's certificate for 127.0.0.1, and client
// certificates issued on demand.
type testPKI struct {
	t      *testing.T
	ca     *x509.Certificate
	caKey  *ecdsa.PrivateKey
	pool   *x509.CertPool
	server tls.Certificate
	serial int64
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	p := &testPKI{t: t, pool: x509.NewCertPool()}
	p.caKey = newKey(t)
	tmpl := p.template("lockd test CA")
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &p.caKey.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	if p.ca, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	p.pool.AddCert(p.ca)
	srv := p.template("lockd")
	srv.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
	srv.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	p.server = p.issue(srv)
	return p
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func (p *testPKI) template(cn string) *x509.Certificate {
	p.serial++
	return &x509.Certificate{SerialNumber: big.NewInt(p.serial), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
}

func (p *testPKI) issue(tmpl *x509.Certificate) tls.Certificate {
	key := newKey(p.t)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.caKey)
	if err != nil {
		p.t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// client issues a client certificate with Common Name cn.
func (p *testPKI) client(cn string) tls.Certificate {
	tmpl := p.template(cn)
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	return p.issue(tmpl)
}

// serverConfig is the server's TLS configuration, requiring client
// certificates when require is set.
func (p *testPKI) serverConfig(require bool) *tls.Config {
	auth := tls.VerifyClientCertIfGiven
	if require {
		auth = tls.RequireAndVerifyClientCert
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{p.server}, ClientCAs: p.pool, ClientAuth: auth, NextProtos: []string{"h2", "http/1.1"}}
}

// clientConfig trusts the CA and presents certs.
func (p *testPKI) clientConfig(certs ...tls.Certificate) *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: p.pool, Certificates: certs}
}
