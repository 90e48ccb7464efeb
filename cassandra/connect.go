package cassandra

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// ConnectOptions say how a process connects to the lock cluster: contact
// points, keyspace, consistency, routing, login and client-to-node TLS. They
// are the connection settings every lockstep command shares (lockctl, lockd),
// so that one set of LOCKSTEP_* variables points all of them at one fleet;
// a Go program may fill them itself, or from the environment (FromEnv).
//
// Each setting has a name, which is also the command-line flag the commands
// give it (without "--"), and the environment variables it is read from
// (ConnectSettings). Errors name a setting by its flag, e.g. "--tls-ca".
//
// The zero value is not usable: start from DefaultConnectOptions.
type ConnectOptions struct {
	// Hosts are the contact points, host or host:port ("hosts").
	Hosts []string
	// Port is the native transport port of hosts given without one ("port").
	Port int
	// Keyspace is the lock keyspace ("keyspace").
	Keyspace string
	// Consistency is the read and write level of the store and of the
	// session's own statements ("consistency"); New refuses the levels
	// that cannot keep a global store global (LOCAL_QUORUM).
	Consistency gocql.Consistency
	// LocalDC routes requests to this data centre first: token-aware over
	// DC-aware round robin ("local-dc"). It changes routing only; the store
	// stays global.
	LocalDC string
	// Timeout bounds connecting and each request ("timeout").
	Timeout time.Duration
	// Username is the PasswordAuthenticator user ("username").
	Username string
	// PasswordFile names a file whose first line is the password; it wins
	// over Password ("password-file").
	PasswordFile string
	// Password is the login's password (LOCKSTEP_PASSWORD; never a flag:
	// a password on a command line shows in ps and in shell history).
	Password string
	// TLS turns on client-to-node TLS, verifying the nodes against the
	// system roots unless TLSCA is given ("tls"). Any TLS* field implies it.
	TLS bool
	// TLSCA is a PEM CA bundle to verify the nodes with ("tls-ca").
	TLSCA string
	// TLSCert and TLSKey are the PEM client certificate and its key
	// ("tls-cert", "tls-key"); they go together.
	TLSCert, TLSKey string
	// TLSServerName is the name verified in the nodes' certificates
	// (default: the address dialled) ("tls-server-name").
	TLSServerName string
	// TLSInsecureSkipVerify does NOT verify the nodes' certificates: for
	// tests only ("tls-insecure-skip-verify").
	TLSInsecureSkipVerify bool
}

// DefaultConnectOptions are the defaults before flags and environment: one
// local node on port 9042, keyspace "locks", QUORUM, a 10 s timeout, no
// login, no TLS.
func DefaultConnectOptions() ConnectOptions {
	return ConnectOptions{Hosts: []string{"127.0.0.1"}, Port: 9042, Keyspace: "locks", Consistency: gocql.Quorum,
		Timeout: 10 * time.Second}
}

// ConnectSetting is one setting of ConnectOptions: its name (the flag the
// commands give it) and the environment variables read for it, first set
// wins.
type ConnectSetting struct {
	Name string
	Env  []string
}

// ConnectSettings lists every setting FromEnv reads, in order. The password
// is read from LOCKSTEP_PASSWORD alone and has no setting name.
func ConnectSettings() []ConnectSetting {
	return []ConnectSetting{
		{"hosts", []string{"LOCKSTEP_HOSTS", "CASSANDRA_HOSTS"}},
		{"port", []string{"LOCKSTEP_PORT"}},
		{"keyspace", []string{"LOCKSTEP_KEYSPACE"}},
		{"consistency", []string{"LOCKSTEP_CONSISTENCY"}},
		{"local-dc", []string{"LOCKSTEP_LOCAL_DC"}},
		{"timeout", []string{"LOCKSTEP_TIMEOUT"}},
		{"username", []string{"LOCKSTEP_USERNAME"}},
		{"password-file", []string{"LOCKSTEP_PASSWORD_FILE"}},
		{"tls", []string{"LOCKSTEP_TLS"}},
		{"tls-ca", []string{"LOCKSTEP_TLS_CA"}},
		{"tls-cert", []string{"LOCKSTEP_TLS_CERT"}},
		{"tls-key", []string{"LOCKSTEP_TLS_KEY"}},
		{"tls-server-name", []string{"LOCKSTEP_TLS_SERVER_NAME"}},
		{"tls-insecure-skip-verify", []string{"LOCKSTEP_TLS_INSECURE_SKIP_VERIFY"}},
	}
}

// FromEnv fills the settings from the environment as getenv reports it:
// for each setting of ConnectSettings that given does not report as set
// already (by a flag; given may be nil), the first of its variables that is
// set (blank counts as unset). It always reads Password from
// LOCKSTEP_PASSWORD. A bad value names the variable and the setting, and
// leaves the setting as it was.
func (o *ConnectOptions) FromEnv(getenv func(string) string, given func(name string) bool) error {
	for _, s := range ConnectSettings() {
		if given != nil && given(s.Name) {
			continue
		}
		for _, env := range s.Env {
			v := strings.TrimSpace(getenv(env))
			if v == "" {
				continue
			}
			if err := o.Set(s.Name, v); err != nil {
				return fmt.Errorf("%s=%q (for --%s): %w", env, v, s.Name, err)
			}
			break
		}
	}
	o.Password = getenv("LOCKSTEP_PASSWORD")
	return nil
}

// Set parses value into the setting named name (one of ConnectSettings),
// as a flag of that name would. A bad value changes nothing.
func (o *ConnectOptions) Set(name, value string) error {
	var err error
	switch name {
	case "hosts":
		var h []string
		if h, err = ParseHosts(value); err == nil {
			o.Hosts = h
		}
	case "port":
		var p int
		if p, err = ParsePort(value); err == nil {
			o.Port = p
		}
	case "consistency":
		var c gocql.Consistency
		if c, err = ParseConsistency(value); err == nil {
			o.Consistency = c
		}
	case "timeout":
		var d time.Duration
		if d, err = time.ParseDuration(strings.TrimSpace(value)); err == nil {
			o.Timeout = d
		}
	case "tls", "tls-insecure-skip-verify":
		var b bool
		if b, err = strconv.ParseBool(strings.TrimSpace(value)); err == nil {
			if name == "tls" {
				o.TLS = b
			} else {
				o.TLSInsecureSkipVerify = b
			}
		}
	default:
		p := map[string]*string{"keyspace": &o.Keyspace, "local-dc": &o.LocalDC, "username": &o.Username,
			"password-file": &o.PasswordFile, "tls-ca": &o.TLSCA, "tls-cert": &o.TLSCert, "tls-key": &o.TLSKey,
			"tls-server-name": &o.TLSServerName}[name]
		if p == nil {
			return fmt.Errorf("unknown connection setting %q (ConnectSettings lists them)", name)
		}
		*p = value
	}
	return err
}

// ParseHosts parses a comma-separated, non-empty list of contact points,
// host or host:port; blanks around and between them are dropped.
func ParseHosts(s string) ([]string, error) {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no host given: want host[:port],... e.g. 10.0.0.1,10.0.0.2:9043")
	}
	return out, nil
}

// ParsePort parses a TCP port, 1 to 65535.
func ParsePort(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > 65535 {
		return 0, errors.New("want a port number from 1 to 65535")
	}
	return n, nil
}

// ParseConsistency parses a consistency level by name, any case, e.g.
// "quorum". Any level parses; Validate refuses those New refuses.
func ParseConsistency(s string) (gocql.Consistency, error) {
	c, err := gocql.ParseConsistencyWrapper(strings.ToUpper(strings.TrimSpace(s)))
	if err != nil {
		return 0, fmt.Errorf("unknown consistency level %q (want QUORUM or ALL)", s)
	}
	return c, nil
}

// Validate checks the options before anything connects: a positive timeout,
// a port, at least one host, a keyspace and a consistency level New
// accepts, a user and a password together, and the TLS certificate with its
// key. It reads the password file into Password, and turns TLS on when any
// TLS* field is set.
func (o *ConnectOptions) Validate() error {
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout %v must be positive", o.Timeout)
	}
	if o.Port < 1 || o.Port > 65535 {
		return fmt.Errorf("--port %d: want 1 to 65535", o.Port)
	}
	if len(o.Hosts) == 0 {
		return errors.New("--hosts: no host given: want host[:port],... e.g. 10.0.0.1,10.0.0.2:9043")
	}
	// New only validates; it contacts nothing, so an unconnected session
	// does: the keyspace and level are refused here rather than after
	// connecting.
	if _, err := New(new(gocql.Session), o.Keyspace, WithConsistency(o.Consistency, o.Consistency)); err != nil {
		return err
	}
	if err := o.readPassword(); err != nil {
		return err
	}
	if o.TLSCA != "" || o.TLSCert != "" || o.TLSKey != "" || o.TLSServerName != "" || o.TLSInsecureSkipVerify {
		o.TLS = true
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return errors.New("--tls-cert and --tls-key go together: give both (the client certificate and its key) or neither")
	}
	return nil
}

// readPassword takes the password from the password file, when one is named
// (it wins over LOCKSTEP_PASSWORD), and checks that a user and a password
// come together.
func (o *ConnectOptions) readPassword() error {
	if o.PasswordFile != "" {
		f, err := os.Open(o.PasswordFile)
		if err != nil {
			return fmt.Errorf("--password-file: %w", err)
		}
		defer f.Close()
		line, err := bufio.NewReader(f).ReadString('\n')
		if err != nil && line == "" {
			return fmt.Errorf("--password-file %s: no password in it (want the password on its first line)", o.PasswordFile)
		}
		pw := strings.TrimRight(line, "\r\n")
		if pw == "" {
			return fmt.Errorf("--password-file %s: its first line is empty (want the password on it)", o.PasswordFile)
		}
		o.Password = pw
	}
	switch {
	case o.Username != "" && o.Password == "":
		return fmt.Errorf("--username %s has no password: set LOCKSTEP_PASSWORD or name a file with --password-file", o.Username)
	case o.Username == "" && o.Password != "":
		return errors.New("a password is set (LOCKSTEP_PASSWORD or --password-file) but no user: give --username (or LOCKSTEP_USERNAME)")
	}
	return nil
}

// ClusterConfig maps the options (validated: call Validate first) to the
// driver's configuration: contact points and port, timeouts, consistency,
// DC-aware routing, PasswordAuthenticator and TLS, with the driver's own
// logging discarded (everything it could say is in its errors). It contacts
// nothing; the TLS files are read here, so a missing or malformed one is
// refused before any connection.
func (o *ConnectOptions) ClusterConfig() (*gocql.ClusterConfig, error) {
	cluster := gocql.NewCluster(o.Hosts...)
	cluster.Port = o.Port // for hosts given without one
	cluster.Timeout = o.Timeout
	cluster.ConnectTimeout = o.Timeout
	cluster.Consistency = o.Consistency // for the session's own statements (schema)
	cluster.Logger = log.New(io.Discard, "", 0)
	if o.LocalDC != "" {
		// Replicas of the row first, among them (and as fallback) the
		// nodes of the local DC, round robin; remote DCs only when no
		// local node is up.
		cluster.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy(o.LocalDC))
	}
	if o.Username != "" {
		cluster.Authenticator = gocql.PasswordAuthenticator{Username: o.Username, Password: o.Password}
	}
	if o.TLS {
		cfg, err := o.TLSConfig()
		if err != nil {
			return nil, err
		}
		// With a Config, gocql verifies unless Config.InsecureSkipVerify is
		// set and EnableHostVerification is not.
		cluster.SslOpts = &gocql.SslOptions{Config: cfg, EnableHostVerification: !o.TLSInsecureSkipVerify}
	}
	return cluster, nil
}

// TLSConfig builds the client's TLS configuration: the CA bundle (else the
// system roots), the client key pair, the server name. Verification stays
// on unless TLSInsecureSkipVerify.
func (o *ConnectOptions) TLSConfig() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: o.TLSServerName, InsecureSkipVerify: o.TLSInsecureSkipVerify}
	if o.TLSCA != "" {
		pem, err := os.ReadFile(o.TLSCA)
		if err != nil {
			return nil, fmt.Errorf("--tls-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--tls-ca %s: no PEM certificate in it (want the CA bundle that signed the nodes' certificates)", o.TLSCA)
		}
		cfg.RootCAs = pool
	}
	if o.TLSCert != "" {
		pair, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("--tls-cert %s / --tls-key %s: %w", o.TLSCert, o.TLSKey, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// NewStore is New on session with the options' keyspace and consistency:
// the global store the options name.
func (o *ConnectOptions) NewStore(session *gocql.Session) (*Store, error) {
	return New(session, o.Keyspace, WithConsistency(o.Consistency, o.Consistency))
}

// Describe names the contact points for a log line or an error, e.g.
// "Cassandra at 10.0.0.1,10.0.0.2 port 9042": the port is named where it
// applies (hosts given without one).
func (o *ConnectOptions) Describe() string {
	without := 0
	for _, h := range o.Hosts {
		if _, _, err := net.SplitHostPort(h); err != nil {
			without++
		}
	}
	where := "Cassandra at " + strings.Join(o.Hosts, ",")
	switch {
	case without == len(o.Hosts):
		where += fmt.Sprintf(" port %d", o.Port)
	case without > 0:
		where += fmt.Sprintf(" (port %d for hosts given without one)", o.Port)
	}
	return where
}
