package securetest

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// Env is the secure node a test runs against, as scripts/cassandra up
// --secure prints it.
type Env struct {
	Hosts []string // LOCKSTEP_SECURE_HOSTS, comma-separated
	// CA verifies the nodes; WrongCA is an unrelated CA that must be refused.
	CA, WrongCA string
	// Cert and Key are the client certificate the nodes require.
	Cert, Key string
	// Superuser and its password (first line of SuperuserPasswordFile).
	Superuser, SuperuserPasswordFile string
}

// Load returns the secure node's settings, or skips t with the commands that
// start one when LOCKSTEP_SECURE_HOSTS is empty. A half-set environment
// fails t instead: that is a broken CI stage, not an absent node.
func Load(t testing.TB) Env {
	t.Helper()
	raw := os.Getenv("LOCKSTEP_SECURE_HOSTS")
	if strings.TrimSpace(raw) == "" {
		t.Skip("LOCKSTEP_SECURE_HOSTS is empty: these tests need the authenticated TLS node; start it with " +
			`eval "$(scripts/cassandra up --nodes 1 --secure)"`)
	}
	e := Env{
		CA: os.Getenv("LOCKSTEP_SECURE_CA"), WrongCA: os.Getenv("LOCKSTEP_SECURE_WRONG_CA"),
		Cert: os.Getenv("LOCKSTEP_SECURE_CERT"), Key: os.Getenv("LOCKSTEP_SECURE_KEY"),
		Superuser:             os.Getenv("LOCKSTEP_SECURE_SUPERUSER"),
		SuperuserPasswordFile: os.Getenv("LOCKSTEP_SECURE_SUPERUSER_PASSWORD_FILE"),
	}
	for _, h := range strings.Split(raw, ",") {
		if h = strings.TrimSpace(h); h != "" {
			e.Hosts = append(e.Hosts, h)
		}
	}
	for name, v := range map[string]string{
		"LOCKSTEP_SECURE_CA": e.CA, "LOCKSTEP_SECURE_WRONG_CA": e.WrongCA,
		"LOCKSTEP_SECURE_CERT": e.Cert, "LOCKSTEP_SECURE_KEY": e.Key,
		"LOCKSTEP_SECURE_SUPERUSER": e.Superuser, "LOCKSTEP_SECURE_SUPERUSER_PASSWORD_FILE": e.SuperuserPasswordFile,
	} {
		if v == "" {
			t.Fatalf("LOCKSTEP_SECURE_HOSTS is set but %s is empty: use every line scripts/cassandra up --secure prints", name)
		}
	}
	return e
}

// SuperuserPassword returns the superuser's password.
func (e Env) SuperuserPassword(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(e.SuperuserPasswordFile)
	if err != nil {
		t.Fatal(err)
	}
	pw, _, _ := strings.Cut(string(b), "\n")
	return pw
}

// Cluster returns a configuration for the node as user with password,
// verifying the nodes against ca (normally e.CA) with host verification on,
// and presenting the client certificate.
func (e Env) Cluster(t testing.TB, user, password, ca string) *gocql.ClusterConfig {
	t.Helper()
	cfg, err := e.TLS(ca)
	if err != nil {
		t.Fatal(err)
	}
	c := gocql.NewCluster(e.Hosts...)
	c.Timeout = 20 * time.Second
	c.ConnectTimeout = 10 * time.Second
	c.Authenticator = gocql.PasswordAuthenticator{Username: user, Password: password}
	c.SslOpts = &gocql.SslOptions{Config: cfg, EnableHostVerification: true}
	return c
}

// Session connects as user; it fails t on error and closes at cleanup.
func (e Env) Session(t testing.TB, user, password string) *gocql.Session {
	t.Helper()
	s, err := e.Cluster(t, user, password, e.CA).CreateSession()
	if err != nil {
		t.Fatalf("connecting as %s: %v", user, err)
	}
	t.Cleanup(s.Close)
	return s
}

// TLS returns the client TLS configuration verifying the nodes with ca.
func (e Env) TLS(ca string) (*tls.Config, error) {
	pem, err := os.ReadFile(ca)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: no PEM certificate", ca)
	}
	pair, err := tls.LoadX509KeyPair(e.Cert, e.Key)
	if err != nil {
		return nil, err
	}
	return &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}
