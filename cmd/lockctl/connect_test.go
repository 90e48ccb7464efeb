package main

import (
	"bytes"
	"context"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/cassandra/securetest"
)

// localDC returns the local data centre of a token-aware, DC-aware round
// robin policy, read from the driver's unexported fields; "" for any other
// policy.
func localDC(p gocql.HostSelectionPolicy) string {
	v := reflect.ValueOf(p)
	if p == nil || v.Type().String() != "*gocql.tokenAwareHostPolicy" {
		return ""
	}
	fb := v.Elem().FieldByName("fallback").Elem()
	if fb.Type().String() != "*gocql.dcAwareRR" {
		return ""
	}
	return fb.Elem().FieldByName("local").String()
}

func TestClusterConfig_Defaults(t *testing.T) {
	cfg, err := parse(t, nil, "fleet").opts.ClusterConfig()
	require.NoError(t, err)
	assert.Equal(t, []string{"127.0.0.1"}, cfg.Hosts)
	assert.Equal(t, 9042, cfg.Port)
	assert.Equal(t, 10*time.Second, cfg.Timeout)
	assert.Equal(t, 10*time.Second, cfg.ConnectTimeout)
	assert.Equal(t, gocql.Quorum, cfg.Consistency)
	assert.Nil(t, cfg.Authenticator)
	assert.Nil(t, cfg.SslOpts)
	assert.Empty(t, localDC(cfg.PoolConfig.HostSelectionPolicy))
}

func TestClusterConfig_FromEnvironment(t *testing.T) {
	ca, cert, key := securetest.ClientCertFiles(t)
	env := map[string]string{
		"LOCKSTEP_HOSTS": "10.0.0.1,10.0.0.2:9343", "CASSANDRA_HOSTS": "ignored", "LOCKSTEP_PORT": "9142",
		"LOCKSTEP_KEYSPACE": "ks", "LOCKSTEP_CONSISTENCY": "all", "LOCKSTEP_LOCAL_DC": "dc2",
		"LOCKSTEP_TIMEOUT": "4s", "LOCKSTEP_USERNAME": "ops", "LOCKSTEP_PASSWORD": "pw from env",
		"LOCKSTEP_TLS_CA": ca, "LOCKSTEP_TLS_CERT": cert, "LOCKSTEP_TLS_KEY": key,
		"LOCKSTEP_TLS_SERVER_NAME": "cassandra.internal", "LOCKSTEP_OUTPUT": "json",
	}
	o := parse(t, env, "fleet").opts
	assert.Equal(t, "ks", o.Keyspace)
	assert.True(t, o.json())
	cfg, err := o.ClusterConfig()
	require.NoError(t, err)
	assert.Equal(t, []string{"10.0.0.1", "10.0.0.2:9343"}, cfg.Hosts)
	assert.Equal(t, 9142, cfg.Port)
	assert.Equal(t, 4*time.Second, cfg.Timeout)
	assert.Equal(t, gocql.All, cfg.Consistency)
	assert.Equal(t, "dc2", localDC(cfg.PoolConfig.HostSelectionPolicy), "%T", cfg.PoolConfig.HostSelectionPolicy)
	assert.Equal(t, gocql.PasswordAuthenticator{Username: "ops", Password: "pw from env"}, cfg.Authenticator)
	require.NotNil(t, cfg.SslOpts)
	assert.True(t, cfg.SslOpts.EnableHostVerification)
	require.NotNil(t, cfg.SslOpts.Config)
	assert.False(t, cfg.SslOpts.Config.InsecureSkipVerify)
	assert.Equal(t, "cassandra.internal", cfg.SslOpts.Config.ServerName)
	assert.NotNil(t, cfg.SslOpts.Config.RootCAs, "the CA bundle, not the system roots")
	require.Len(t, cfg.SslOpts.Config.Certificates, 1)
	leaf, err := x509.ParseCertificate(cfg.SslOpts.Config.Certificates[0].Certificate[0])
	require.NoError(t, err)
	assert.Equal(t, "ops", leaf.Subject.CommonName)
}

func TestClusterConfig_FlagsWinOverEnvironment(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "pw")
	require.NoError(t, os.WriteFile(pw, []byte("from the file\nsecond line\n"), 0o600))
	env := map[string]string{"LOCKSTEP_HOSTS": "10.9.9.9", "LOCKSTEP_PORT": "9142", "LOCKSTEP_LOCAL_DC": "dc2",
		"LOCKSTEP_USERNAME": "env-user", "LOCKSTEP_PASSWORD": "from env", "LOCKSTEP_TLS": "true"}
	o := parse(t, env, "--hosts", "10.1.1.1", "--port", "19042", "--local-dc", "dc1", "--username", "flag-user",
		"--password-file", pw, "--tls=false", "fleet").opts
	cfg, err := o.ClusterConfig()
	require.NoError(t, err)
	assert.Equal(t, []string{"10.1.1.1"}, cfg.Hosts)
	assert.Equal(t, 19042, cfg.Port)
	assert.Equal(t, "dc1", localDC(cfg.PoolConfig.HostSelectionPolicy))
	assert.Equal(t, gocql.PasswordAuthenticator{Username: "flag-user", Password: "from the file"}, cfg.Authenticator,
		"the password file's first line wins over LOCKSTEP_PASSWORD")
	assert.Nil(t, cfg.SslOpts, "--tls=false wins over LOCKSTEP_TLS=true")
}

func TestClusterConfig_TLSWithSystemRootsAndInsecureSkip(t *testing.T) {
	cfg, err := parse(t, map[string]string{"LOCKSTEP_TLS": "1"}, "fleet").opts.ClusterConfig()
	require.NoError(t, err)
	require.NotNil(t, cfg.SslOpts)
	assert.True(t, cfg.SslOpts.EnableHostVerification)
	assert.Nil(t, cfg.SslOpts.Config.RootCAs, "nil: the system roots")
	assert.Empty(t, cfg.SslOpts.Config.Certificates)

	cfg, err = parse(t, nil, "--tls-insecure-skip-verify", "fleet").opts.ClusterConfig()
	require.NoError(t, err)
	require.NotNil(t, cfg.SslOpts, "--tls-insecure-skip-verify implies --tls")
	assert.False(t, cfg.SslOpts.EnableHostVerification)
	assert.True(t, cfg.SslOpts.Config.InsecureSkipVerify)
}

func TestRun_BadEnvironmentValueNamesTheVariable(t *testing.T) {
	for env, want := range map[string]string{
		"LOCKSTEP_PORT":        `LOCKSTEP_PORT="x" (for --port): want a port number from 1 to 65535`,
		"LOCKSTEP_TIMEOUT":     `LOCKSTEP_TIMEOUT="x" (for --timeout): time: invalid duration "x"`,
		"LOCKSTEP_TLS":         `LOCKSTEP_TLS="x" (for --tls): strconv.ParseBool: parsing "x": invalid syntax`,
		"LOCKSTEP_CONSISTENCY": `LOCKSTEP_CONSISTENCY="x" (for --consistency): unknown consistency level "x" (want QUORUM or ALL)`,
		"LOCKSTEP_OUTPUT":      `LOCKSTEP_OUTPUT="x" (for --output): unknown output "x"`,
	} {
		a, out, errOut := testApp(t, map[string]string{env: "x"})
		assert.Equal(t, exitUsage, a.run(context.Background(), []string{"fleet"}), env)
		assert.Contains(t, errOut.String(), want)
		assert.Empty(t, out.String())
	}
	for env, want := range map[string]string{
		"LOCKSTEP_PORT=abc":   `LOCKSTEP_PORT="abc" (for --port): want a port number from 1 to 65535`,
		"LOCKSTEP_PORT=70000": `LOCKSTEP_PORT="70000" (for --port): want a port number from 1 to 65535`,
		"LOCKSTEP_HOSTS=,":    `LOCKSTEP_HOSTS="," (for --hosts): no host given: want host[:port],... e.g. 10.0.0.1,10.0.0.2:9043`,
	} {
		name, value, _ := strings.Cut(env, "=")
		a, out, errOut := testApp(t, map[string]string{name: value})
		assert.Equal(t, exitUsage, a.run(context.Background(), []string{"fleet"}), env)
		assert.Contains(t, errOut.String(), want)
		assert.Empty(t, out.String())
	}
	a, _, errOut := testApp(t, map[string]string{"LOCKSTEP_PASSWORD": "pw"})
	assert.Equal(t, exitUsage, a.run(context.Background(), []string{"fleet"}))
	assert.Contains(t, errOut.String(), "a password is set (LOCKSTEP_PASSWORD or --password-file) but no user: give --username")
}

// A TLS file that cannot be used is refused before any connection: exit 2.
func TestRun_BadTLSFilesAreUsageErrors(t *testing.T) {
	ca, cert, key := securetest.ClientCertFiles(t)
	notPEM := filepath.Join(t.TempDir(), "ca.txt")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls-ca", "/nonexistent/ca.pem"}, "--tls-ca: open /nonexistent/ca.pem"},
		{[]string{"--tls-ca", notPEM}, "no PEM certificate in it"},
		{[]string{"--tls-ca", ca, "--tls-cert", cert, "--tls-key", ca}, "--tls-cert " + cert + " / --tls-key " + ca},
		{[]string{"--tls-cert", key, "--tls-key", key}, "--tls-cert"},
	} {
		var out, errOut bytes.Buffer
		a := newApp(strings.NewReader(""), &out, &errOut)
		a.getenv = func(string) string { return "" }
		code := a.run(context.Background(), append(c.args, "--hosts", "127.0.0.1:1", "--timeout", "1s", "fleet"))
		assert.Equal(t, exitUsage, code, "%q: %s", c.args, errOut.String())
		assert.Contains(t, errOut.String(), c.want)
		assert.NotContains(t, errOut.String(), "cannot reach")
	}
}

func TestDial_InsecureSkipVerifyWarnsLoudly(t *testing.T) {
	var out, errOut bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errOut)
	a.getenv = func(string) string { return "" }
	code := a.run(context.Background(), []string{"--tls-insecure-skip-verify", "--hosts", "127.0.0.1:1", "--timeout", "1s", "phase", "get"})
	assert.Equal(t, exitUnreachable, code)
	assert.True(t, strings.HasPrefix(errOut.String(), "lockctl: WARNING: --tls-insecure-skip-verify: the nodes' certificates are NOT verified"), errOut.String())
	assert.Contains(t, errOut.String(), "that they accept TLS (--tls is on)")
}

func TestConnectError_SaysWhatToCheck(t *testing.T) {
	o := defaultOptions()
	o.Hosts = []string{"10.0.0.1", "10.0.0.2"}
	for _, c := range []struct {
		user, driver string
		want         []string
	}{
		{"", `gocql: unable to create session: unable to discover protocol version: authentication required (using "org.apache.cassandra.auth.PasswordAuthenticator")`,
			[]string{"Cassandra at 10.0.0.1,10.0.0.2 port 9042 requires a login", "give --username (or LOCKSTEP_USERNAME)", "LOCKSTEP_PASSWORD", "--password-file"}},
		{"ops", "gocql: unable to create session: Provided username ops and/or password are incorrect",
			[]string{`refused the login of user "ops"`, "check --username and the password in LOCKSTEP_PASSWORD or --password-file"}},
		{"", "gocql: unable to create session: tls: failed to verify certificate: x509: certificate signed by unknown authority",
			[]string{"TLS with Cassandra at 10.0.0.1,10.0.0.2", "--tls-ca", "--tls-server-name", "--tls-cert/--tls-key"}},
		{"", "gocql: unable to create session: unable to discover protocol version: dial tcp 10.0.0.1:9042: i/o timeout",
			[]string{"cannot reach Cassandra at 10.0.0.1,10.0.0.2 port 9042 within --timeout 10s", "check --hosts and --port", "need --tls"}},
	} {
		o.Username = c.user
		err := connectError(o, errorString(c.driver))
		assert.Equal(t, exitUnreachable, exitCode(err))
		for _, w := range c.want {
			assert.Contains(t, err.Error(), w)
		}
		assert.Contains(t, err.Error(), c.driver, "the driver's cause is kept")
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// requestError is a server error as the driver reports it.
type requestError struct {
	code int
	msg  string
}

func (e requestError) Code() int       { return e.code }
func (e requestError) Message() string { return e.msg }
func (e requestError) Error() string   { return e.msg }

func TestWithHint_SaysHowToFixSchemaAndPermissions(t *testing.T) {
	o := defaultOptions()
	o.Keyspace, o.Username = "ks", "app"
	wrap := func(err error) error { return fmt.Errorf("cassandra: read queue_lock: %w", err) }

	err := withHint(wrap(requestError{gocql.ErrCodeUnauthorized, "User app has no SELECT permission on <table ks.queue_lock>"}), o)
	assert.Contains(t, err.Error(), `the role "app" lacks a permission on keyspace ks: grant it SELECT and MODIFY on the lock tables`)
	var req gocql.RequestError
	assert.ErrorAs(t, err, &req, "the driver's error stays in the chain")

	for _, cause := range []error{requestError{gocql.ErrCodeInvalid, "keyspace ks does not exist"}, gocql.ErrKeyspaceDoesNotExist,
		requestError{gocql.ErrCodeInvalid, "table queue_lock does not exist"}} {
		err = withHint(wrap(cause), o)
		assert.Contains(t, err.Error(), "create the schema with: lockctl --keyspace ks schema apply", "%v", cause)
		assert.ErrorIs(t, err, cause)
	}
	plain := wrap(errorString("timeout"))
	assert.Equal(t, plain, withHint(plain, o))
}

func TestDescribeHosts_NamesThePortWhereItApplies(t *testing.T) {
	o := defaultOptions()
	for hosts, want := range map[string]string{
		"10.0.0.1,10.0.0.2":        "Cassandra at 10.0.0.1,10.0.0.2 port 9042",
		"10.0.0.1:9142":            "Cassandra at 10.0.0.1:9142",
		"10.0.0.1,10.0.0.2:9142":   "Cassandra at 10.0.0.1,10.0.0.2:9142 (port 9042 for hosts given without one)",
		"[::1]:9142,cassandra-0.x": "Cassandra at [::1]:9142,cassandra-0.x (port 9042 for hosts given without one)",
	} {
		o.Hosts = splitList(hosts)
		assert.Equal(t, want, describeHosts(o))
	}
}
