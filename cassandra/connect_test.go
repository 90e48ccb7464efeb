package cassandra

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/cassandra/securetest"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConnectOptions_DefaultsMakeALocalPlainConfig(t *testing.T) {
	o := DefaultConnectOptions()
	require.NoError(t, o.FromEnv(envOf(nil), nil))
	require.NoError(t, o.Validate())
	cfg, err := o.ClusterConfig()
	require.NoError(t, err)
	assert.Equal(t, []string{"127.0.0.1"}, cfg.Hosts)
	assert.Equal(t, 9042, cfg.Port)
	assert.Equal(t, 10*time.Second, cfg.Timeout)
	assert.Equal(t, 10*time.Second, cfg.ConnectTimeout)
	assert.Equal(t, gocql.Quorum, cfg.Consistency)
	assert.Nil(t, cfg.Authenticator)
	assert.Nil(t, cfg.SslOpts)
	assert.Equal(t, "locks", o.Keyspace)
	assert.Equal(t, "Cassandra at 127.0.0.1 port 9042", o.Describe())
}

func TestConnectOptions_FromEnvReadsEveryVariable(t *testing.T) {
	ca, cert, key := securetest.ClientCertFiles(t)
	env := map[string]string{
		"LOCKSTEP_HOSTS": "10.0.0.1, 10.0.0.2:9343", "CASSANDRA_HOSTS": "ignored", "LOCKSTEP_PORT": "9142",
		"LOCKSTEP_KEYSPACE": "ks", "LOCKSTEP_CONSISTENCY": "all", "LOCKSTEP_LOCAL_DC": "dc2",
		"LOCKSTEP_TIMEOUT": "4s", "LOCKSTEP_USERNAME": "ops", "LOCKSTEP_PASSWORD": "pw from env",
		"LOCKSTEP_TLS_CA": ca, "LOCKSTEP_TLS_CERT": cert, "LOCKSTEP_TLS_KEY": key,
		"LOCKSTEP_TLS_SERVER_NAME": "cassandra.internal",
	}
	o := DefaultConnectOptions()
	require.NoError(t, o.FromEnv(envOf(env), nil))
	require.NoError(t, o.Validate())
	assert.True(t, o.TLS, "a TLS file implies TLS")
	cfg, err := o.ClusterConfig()
	require.NoError(t, err)
	assert.Equal(t, []string{"10.0.0.1", "10.0.0.2:9343"}, cfg.Hosts, "LOCKSTEP_HOSTS wins over CASSANDRA_HOSTS")
	assert.Equal(t, 9142, cfg.Port)
	assert.Equal(t, 4*time.Second, cfg.Timeout)
	assert.Equal(t, gocql.All, cfg.Consistency)
	assert.NotNil(t, cfg.PoolConfig.HostSelectionPolicy, "routed to dc2 first")
	assert.Equal(t, gocql.PasswordAuthenticator{Username: "ops", Password: "pw from env"}, cfg.Authenticator)
	require.NotNil(t, cfg.SslOpts)
	assert.True(t, cfg.SslOpts.EnableHostVerification)
	assert.False(t, cfg.SslOpts.Config.InsecureSkipVerify)
	assert.Equal(t, "cassandra.internal", cfg.SslOpts.Config.ServerName)
	assert.NotNil(t, cfg.SslOpts.Config.RootCAs, "the CA bundle, not the system roots")
	assert.Len(t, cfg.SslOpts.Config.Certificates, 1)
	assert.Equal(t, "ks", o.Keyspace)
	assert.Equal(t, "Cassandra at 10.0.0.1,10.0.0.2:9343 (port 9142 for hosts given without one)", o.Describe())

	o = DefaultConnectOptions()
	require.NoError(t, o.FromEnv(envOf(map[string]string{"CASSANDRA_HOSTS": " 127.0.0.2 ,127.0.0.3,"}), nil))
	assert.Equal(t, []string{"127.0.0.2", "127.0.0.3"}, o.Hosts, "CASSANDRA_HOSTS when LOCKSTEP_HOSTS is unset")
}

// A setting the caller reports as given (by a flag) is not read from the
// environment; the password file wins over LOCKSTEP_PASSWORD.
func TestConnectOptions_GivenSettingsWinOverTheEnvironment(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "pw")
	require.NoError(t, os.WriteFile(pw, []byte("from the file\nsecond line\n"), 0o600))
	o := DefaultConnectOptions()
	o.Hosts, o.Username, o.PasswordFile, o.TLS = []string{"10.1.1.1"}, "flag-user", pw, false
	given := map[string]bool{"hosts": true, "username": true, "password-file": true, "tls": true}
	env := map[string]string{"LOCKSTEP_HOSTS": "10.9.9.9", "LOCKSTEP_USERNAME": "env-user", "LOCKSTEP_PASSWORD": "from env",
		"LOCKSTEP_TLS": "true", "LOCKSTEP_PORT": "9142"}
	require.NoError(t, o.FromEnv(envOf(env), func(n string) bool { return given[n] }))
	require.NoError(t, o.Validate())
	assert.Equal(t, []string{"10.1.1.1"}, o.Hosts)
	assert.Equal(t, 9142, o.Port, "not given: from the environment")
	assert.Equal(t, "flag-user", o.Username)
	assert.Equal(t, "from the file", o.Password, "the password file's first line wins over LOCKSTEP_PASSWORD")
	assert.False(t, o.TLS)
}

func TestConnectOptions_BadEnvironmentValueNamesTheVariableAndChangesNothing(t *testing.T) {
	for env, want := range map[string]string{
		"LOCKSTEP_PORT":                     `LOCKSTEP_PORT="x" (for --port): want a port number from 1 to 65535`,
		"LOCKSTEP_TIMEOUT":                  `LOCKSTEP_TIMEOUT="x" (for --timeout): time: invalid duration "x"`,
		"LOCKSTEP_TLS":                      `LOCKSTEP_TLS="x" (for --tls): strconv.ParseBool`,
		"LOCKSTEP_TLS_INSECURE_SKIP_VERIFY": `LOCKSTEP_TLS_INSECURE_SKIP_VERIFY="x" (for --tls-insecure-skip-verify)`,
		"LOCKSTEP_CONSISTENCY":              `LOCKSTEP_CONSISTENCY="x" (for --consistency): unknown consistency level "x" (want QUORUM or ALL)`,
		"LOCKSTEP_HOSTS":                    `LOCKSTEP_HOSTS="x" (for --hosts)`,
	} {
		value := "x"
		if env == "LOCKSTEP_HOSTS" {
			value, want = ",", `LOCKSTEP_HOSTS="," (for --hosts): no host given`
		}
		o := DefaultConnectOptions()
		err := o.FromEnv(envOf(map[string]string{env: value}), nil)
		require.ErrorContains(t, err, want, env)
		assert.Equal(t, DefaultConnectOptions(), o, "%s: a bad value changes nothing", env)
	}
	o := DefaultConnectOptions()
	require.ErrorContains(t, o.Set("password", "x"), `unknown connection setting "password"`)
	require.ErrorContains(t, o.Set("port", "70000"), "want a port number from 1 to 65535")
	assert.Equal(t, DefaultConnectOptions(), o)
}

func TestConnectOptions_ValidateRefusesWhatCannotWork(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty")
	require.NoError(t, os.WriteFile(empty, []byte("\n"), 0o600))
	for _, c := range []struct {
		name string
		set  func(*ConnectOptions)
		want string
	}{
		{"timeout", func(o *ConnectOptions) { o.Timeout = 0 }, "--timeout 0s must be positive"},
		{"port", func(o *ConnectOptions) { o.Port = 0 }, "--port 0: want 1 to 65535"},
		{"hosts", func(o *ConnectOptions) { o.Hosts = nil }, "--hosts: no host given"},
		{"keyspace", func(o *ConnectOptions) { o.Keyspace = "no-such name" }, "keyspace"},
		{"local quorum", func(o *ConnectOptions) { o.Consistency = gocql.LocalQuorum }, "LOCAL_QUORUM"},
		{"user without password", func(o *ConnectOptions) { o.Username = "ops" }, "--username ops has no password"},
		{"password without user", func(o *ConnectOptions) { o.Password = "pw" }, "a password is set (LOCKSTEP_PASSWORD or --password-file) but no user"},
		{"missing password file", func(o *ConnectOptions) { o.Username, o.PasswordFile = "ops", "/nonexistent/pw" }, "--password-file: open /nonexistent/pw"},
		{"empty password file", func(o *ConnectOptions) { o.Username, o.PasswordFile = "ops", empty }, "its first line is empty"},
		{"cert without key", func(o *ConnectOptions) { o.TLSCert = "c.pem" }, "--tls-cert and --tls-key go together"},
	} {
		o := DefaultConnectOptions()
		c.set(&o)
		require.ErrorContains(t, o.Validate(), c.want, c.name)
	}
}

// A TLS file that cannot be used is refused by ClusterConfig, before any
// connection; --tls-insecure-skip-verify turns verification off and TLS on.
func TestConnectOptions_TLSFiles(t *testing.T) {
	ca, cert, _ := securetest.ClientCertFiles(t)
	notPEM := filepath.Join(t.TempDir(), "ca.txt")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))
	for _, c := range []struct {
		ca, cert, key, want string
	}{
		{"/nonexistent/ca.pem", "", "", "--tls-ca: open /nonexistent/ca.pem"},
		{notPEM, "", "", "no PEM certificate in it"},
		{ca, cert, ca, "--tls-cert " + cert + " / --tls-key " + ca},
	} {
		o := DefaultConnectOptions()
		o.TLSCA, o.TLSCert, o.TLSKey = c.ca, c.cert, c.key
		require.NoError(t, o.Validate())
		_, err := o.ClusterConfig()
		require.ErrorContains(t, err, c.want)
	}

	o := DefaultConnectOptions()
	o.TLSInsecureSkipVerify = true
	require.NoError(t, o.Validate())
	cfg, err := o.ClusterConfig()
	require.NoError(t, err)
	require.NotNil(t, cfg.SslOpts, "skip-verify implies TLS")
	assert.False(t, cfg.SslOpts.EnableHostVerification)
	assert.True(t, cfg.SslOpts.Config.InsecureSkipVerify)
	assert.Nil(t, cfg.SslOpts.Config.RootCAs, "nil: the system roots")
}

func TestConnectOptions_NewStoreUsesTheKeyspaceAndLevel(t *testing.T) {
	o := DefaultConnectOptions()
	o.Keyspace, o.Consistency = "ks", gocql.All
	s, err := o.NewStore(session)
	require.NoError(t, err)
	assert.NotNil(t, s)
	o.Consistency = gocql.LocalQuorum
	_, err = o.NewStore(session)
	require.ErrorContains(t, err, "LOCAL_QUORUM")
}
