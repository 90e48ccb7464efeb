package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/schema"
)

// options are the global flags, shared by every command: the cluster
// connection (package cassandra's ConnectOptions, whose settings and
// variables lockd shares) and lockctl's own.
type options struct {
	cassandra.ConnectOptions
	output string        // "text" or "json"
	tables schema.Tables // empty fields: default names
}

// defaultOptions returns the defaults, before flags and environment.
func defaultOptions() *options {
	return &options{ConnectOptions: cassandra.DefaultConnectOptions(), output: "text"}
}

// register binds the global flags to o on fs (the root's persistent flags,
// so they may come before or after the command).
func (o *options) register(fs *pflag.FlagSet) {
	fs.Var(listValue{&o.Hosts}, "hosts", "comma-separated contact points, host or host:port ($LOCKSTEP_HOSTS, then $CASSANDRA_HOSTS)")
	fs.Var(portValue{&o.Port}, "port", "native transport port for hosts given without one ($LOCKSTEP_PORT)")
	fs.StringVar(&o.Keyspace, "keyspace", o.Keyspace, "the lock keyspace ($LOCKSTEP_KEYSPACE)")
	fs.Var(consistencyValue{&o.Consistency}, "consistency", "read and write consistency: QUORUM or ALL; LOCAL_QUORUM cannot keep the fleet's global locks global and is refused ($LOCKSTEP_CONSISTENCY)")
	fs.StringVar(&o.LocalDC, "local-dc", "", "route to this data centre first: token-aware over DC-aware round robin ($LOCKSTEP_LOCAL_DC)")
	fs.DurationVar(&o.Timeout, "timeout", o.Timeout, "connect and per-request timeout ($LOCKSTEP_TIMEOUT)")
	fs.StringVar(&o.Username, "username", "", "PasswordAuthenticator user; the password comes from $LOCKSTEP_PASSWORD or --password-file ($LOCKSTEP_USERNAME)")
	fs.StringVar(&o.PasswordFile, "password-file", "", "file whose first line is the password ($LOCKSTEP_PASSWORD_FILE)")
	fs.BoolVar(&o.TLS, "tls", false, "client-to-node TLS, verifying the nodes against the system roots ($LOCKSTEP_TLS)")
	fs.StringVar(&o.TLSCA, "tls-ca", "", "PEM CA bundle to verify the nodes with; implies --tls ($LOCKSTEP_TLS_CA)")
	fs.StringVar(&o.TLSCert, "tls-cert", "", "PEM client certificate; implies --tls, needs --tls-key ($LOCKSTEP_TLS_CERT)")
	fs.StringVar(&o.TLSKey, "tls-key", "", "PEM key of --tls-cert ($LOCKSTEP_TLS_KEY)")
	fs.StringVar(&o.TLSServerName, "tls-server-name", "", "name to verify in the nodes' certificates (default: the address dialled) ($LOCKSTEP_TLS_SERVER_NAME)")
	fs.BoolVar(&o.TLSInsecureSkipVerify, "tls-insecure-skip-verify", false, "do NOT verify the nodes' certificates (prints a warning; for tests only) ($LOCKSTEP_TLS_INSECURE_SKIP_VERIFY)")
	fs.Var(outputValue{&o.output}, "output", "text or json: machine output of inspect, fleet and phase get ($LOCKSTEP_OUTPUT)")
	fs.Var(tablesValue{&o.tables}, "table", "K=NAME: use table NAME for the table whose default name is K (repeatable)")
}

// applyEnv sets every flag of fs not given on the command line from its
// environment variable (as getenv reports it): the connection settings by
// cassandra.ConnectOptions.FromEnv (which also reads LOCKSTEP_PASSWORD),
// then LOCKSTEP_OUTPUT. A bad value names the variable.
func (o *options) applyEnv(fs *pflag.FlagSet, getenv func(string) string) error {
	if err := o.FromEnv(getenv, fs.Changed); err != nil {
		return err
	}
	if v := strings.TrimSpace(getenv("LOCKSTEP_OUTPUT")); v != "" && !fs.Changed("output") {
		if err := fs.Lookup("output").Value.Set(v); err != nil {
			return fmt.Errorf("LOCKSTEP_OUTPUT=%q (for --output): %w", v, err)
		}
	}
	return nil
}

// validate checks the options before anything connects: table names
// (lockstep.ValidateName), then the connection settings
// (cassandra.ConnectOptions.Validate, which reads the password file).
func (o *options) validate() error {
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout %v must be positive", o.Timeout)
	}
	if _, err := schema.Statements(o.Keyspace, schema.WithTables(o.tables)); err != nil {
		return err
	}
	return o.ConnectOptions.Validate()
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
