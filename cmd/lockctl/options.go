package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"github.com/spf13/pflag"

	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/schema"
)

// options are the global flags, shared by every command.
type options struct {
	hosts        []string
	port         int
	keyspace     string
	consistency  gocql.Consistency
	localDC      string
	timeout      time.Duration
	username     string
	passwordFile string
	password     string // LOCKSTEP_PASSWORD, or the first line of passwordFile
	tls          bool   // set by --tls or implied by any --tls-* flag
	tlsCA        string
	tlsCert      string
	tlsKey       string
	tlsServer    string
	tlsInsecure  bool
	output       string        // "text" or "json"
	tables       schema.Tables // empty fields: default names
}

// defaultOptions returns the defaults, before flags and environment.
func defaultOptions() *options {
	return &options{hosts: []string{"127.0.0.1"}, port: 9042, keyspace: "locks", consistency: gocql.Quorum,
		timeout: 10 * time.Second, output: "text"}
}

// register binds the global flags to o on fs (the root's persistent flags,
// so they may come before or after the command).
func (o *options) register(fs *pflag.FlagSet) {
	fs.Var(listValue{&o.hosts}, "hosts", "comma-separated contact points, host or host:port ($LOCKSTEP_HOSTS, then $CASSANDRA_HOSTS)")
	fs.Var(portValue{&o.port}, "port", "native transport port for hosts given without one ($LOCKSTEP_PORT)")
	fs.StringVar(&o.keyspace, "keyspace", o.keyspace, "the lock keyspace ($LOCKSTEP_KEYSPACE)")
	fs.Var(consistencyValue{&o.consistency}, "consistency", "read and write consistency: QUORUM or ALL; LOCAL_QUORUM cannot keep the fleet's global locks global and is refused ($LOCKSTEP_CONSISTENCY)")
	fs.StringVar(&o.localDC, "local-dc", "", "route to this data centre first: token-aware over DC-aware round robin ($LOCKSTEP_LOCAL_DC)")
	fs.DurationVar(&o.timeout, "timeout", o.timeout, "connect and per-request timeout ($LOCKSTEP_TIMEOUT)")
	fs.StringVar(&o.username, "username", "", "PasswordAuthenticator user; the password comes from $LOCKSTEP_PASSWORD or --password-file ($LOCKSTEP_USERNAME)")
	fs.StringVar(&o.passwordFile, "password-file", "", "file whose first line is the password ($LOCKSTEP_PASSWORD_FILE)")
	fs.BoolVar(&o.tls, "tls", false, "client-to-node TLS, verifying the nodes against the system roots ($LOCKSTEP_TLS)")
	fs.StringVar(&o.tlsCA, "tls-ca", "", "PEM CA bundle to verify the nodes with; implies --tls ($LOCKSTEP_TLS_CA)")
	fs.StringVar(&o.tlsCert, "tls-cert", "", "PEM client certificate; implies --tls, needs --tls-key ($LOCKSTEP_TLS_CERT)")
	fs.StringVar(&o.tlsKey, "tls-key", "", "PEM key of --tls-cert ($LOCKSTEP_TLS_KEY)")
	fs.StringVar(&o.tlsServer, "tls-server-name", "", "name to verify in the nodes' certificates (default: the address dialled) ($LOCKSTEP_TLS_SERVER_NAME)")
	fs.BoolVar(&o.tlsInsecure, "tls-insecure-skip-verify", false, "do NOT verify the nodes' certificates (prints a warning; for tests only) ($LOCKSTEP_TLS_INSECURE_SKIP_VERIFY)")
	fs.Var(outputValue{&o.output}, "output", "text or json: machine output of inspect, fleet and phase get ($LOCKSTEP_OUTPUT)")
	fs.Var(tablesValue{&o.tables}, "table", "K=NAME: use table NAME for the table whose default name is K (repeatable)")
}

// envFlags maps each global flag to the environment variables read when the
// flag is not given, first set wins. --table has none.
var envFlags = []struct {
	flag string
	envs []string
}{
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
	{"output", []string{"LOCKSTEP_OUTPUT"}},
}

// applyEnv sets every flag of fs not given on the command line from its
// environment variable (as getenv reports it), and reads LOCKSTEP_PASSWORD.
// A bad value names the variable.
func (o *options) applyEnv(fs *pflag.FlagSet, getenv func(string) string) error {
	for _, b := range envFlags {
		if fs.Changed(b.flag) {
			continue
		}
		for _, env := range b.envs {
			v := strings.TrimSpace(getenv(env))
			if v == "" {
				continue
			}
			if err := fs.Lookup(b.flag).Value.Set(v); err != nil {
				return fmt.Errorf("%s=%q (for --%s): %w", env, v, b.flag, err)
			}
			break
		}
	}
	o.password = getenv("LOCKSTEP_PASSWORD")
	return nil
}

// validate checks the options before anything connects: a safe keyspace and
// table names (lockstep.ValidateName), a consistency level package cassandra
// accepts, a positive timeout, a port, and consistent credentials and TLS
// files. It reads the password file.
func (o *options) validate() error {
	if o.timeout <= 0 {
		return fmt.Errorf("--timeout %v must be positive", o.timeout)
	}
	if o.port < 1 || o.port > 65535 {
		return fmt.Errorf("--port %d: want 1 to 65535", o.port)
	}
	if _, err := schema.Statements(o.keyspace, schema.WithTables(o.tables)); err != nil {
		return err
	}
	// New only validates; it contacts nothing, so an unconnected session
	// does: the level is refused here rather than after connecting.
	if _, err := cassandra.New(new(gocql.Session), o.keyspace, cassandra.WithConsistency(o.consistency, o.consistency)); err != nil {
		return err
	}
	if err := o.readPassword(); err != nil {
		return err
	}
	if o.tlsCA != "" || o.tlsCert != "" || o.tlsKey != "" || o.tlsServer != "" || o.tlsInsecure {
		o.tls = true
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return errors.New("--tls-cert and --tls-key go together: give both (the client certificate and its key) or neither")
	}
	return nil
}

// readPassword takes the password from the password file, when one is named
// (it wins over LOCKSTEP_PASSWORD), and checks that a user and a password
// come together.
func (o *options) readPassword() error {
	if o.passwordFile != "" {
		f, err := os.Open(o.passwordFile)
		if err != nil {
			return fmt.Errorf("--password-file: %w", err)
		}
		defer f.Close()
		line, err := bufio.NewReader(f).ReadString('\n')
		if err != nil && line == "" {
			return fmt.Errorf("--password-file %s: no password in it (want the password on its first line)", o.passwordFile)
		}
		o.password = strings.TrimRight(line, "\r\n")
		if o.password == "" {
			return fmt.Errorf("--password-file %s: its first line is empty (want the password on it)", o.passwordFile)
		}
	}
	switch {
	case o.username != "" && o.password == "":
		return fmt.Errorf("--username %s has no password: set LOCKSTEP_PASSWORD or name a file with --password-file", o.username)
	case o.username == "" && o.password != "":
		return errors.New("a password is set (LOCKSTEP_PASSWORD or --password-file) but no user: give --username (or LOCKSTEP_USERNAME)")
	}
	return nil
}

// tableNames returns o.tables with defaults filled in.
func (o *options) tableNames() schema.Tables {
	t, d := o.tables, schema.DefaultTables()
	for _, f := range []struct {
		v   *string
		def string
	}{
		{&t.LegacyMain, d.LegacyMain}, {&t.LegacyShadow, d.LegacyShadow}, {&t.QueueLock, d.QueueLock},
		{&t.GlobalTime, d.GlobalTime}, {&t.FleetCensus, d.FleetCensus}, {&t.FleetPhase, d.FleetPhase},
		{&t.FencedResource, d.FencedResource}, {&t.LockWaits, d.LockWaits},
	} {
		if *f.v == "" {
			*f.v = f.def
		}
	}
	return t
}

// json reports whether the read commands print JSON.
func (o *options) json() bool { return o.output == "json" }

// passwordOnCommandLine finds an attempt to pass the password as a flag
// value, before "--". It is refused before the flags are parsed, so the
// value is never echoed in an error.
func passwordOnCommandLine(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && (name == "password" || name == "pass" || name == "passwd") {
			return true
		}
	}
	return false
}

const passwordFlagRefused = "--password is not accepted: a password on the command line shows in ps and in shell history; " +
	"put it in the LOCKSTEP_PASSWORD environment variable or in a file named by --password-file"
