package main

import (
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lockstep-go/lockstep/cassandra"
)

// The cluster connection flags: lockctl's, with the same names, values and
// LOCKSTEP_* variables, all parsed by cassandra.ConnectOptions.Set, so one
// environment points lockctl and lockd at the same fleet.

// connectUsage is each connection flag's help.
var connectUsage = map[string]string{
	"hosts":                    "comma-separated contact points, host or host:port; any connection flag or variable makes lockd serve that cluster instead of the embedded model ($LOCKSTEP_HOSTS, then $CASSANDRA_HOSTS)",
	"port":                     "native transport port for hosts given without one ($LOCKSTEP_PORT)",
	"keyspace":                 "the lock keyspace; lockd creates nothing: apply the schema with lockctl schema apply ($LOCKSTEP_KEYSPACE)",
	"consistency":              "read and write consistency: QUORUM or ALL; LOCAL_QUORUM is refused ($LOCKSTEP_CONSISTENCY)",
	"local-dc":                 "route to this data centre first: token-aware over DC-aware round robin ($LOCKSTEP_LOCAL_DC)",
	"timeout":                  "connect and per-request timeout ($LOCKSTEP_TIMEOUT)",
	"username":                 "PasswordAuthenticator user; the password comes from $LOCKSTEP_PASSWORD or --password-file ($LOCKSTEP_USERNAME)",
	"password-file":            "file whose first line is the password ($LOCKSTEP_PASSWORD_FILE)",
	"tls":                      "client-to-node TLS, verifying the nodes against the system roots ($LOCKSTEP_TLS)",
	"tls-ca":                   "PEM CA bundle to verify the nodes with; implies --tls ($LOCKSTEP_TLS_CA)",
	"tls-cert":                 "PEM client certificate; implies --tls, needs --tls-key ($LOCKSTEP_TLS_CERT)",
	"tls-key":                  "PEM key of --tls-cert ($LOCKSTEP_TLS_KEY)",
	"tls-server-name":          "name to verify in the nodes' certificates (default: the address dialled) ($LOCKSTEP_TLS_SERVER_NAME)",
	"tls-insecure-skip-verify": "do NOT verify the nodes' certificates (logs a warning; for tests only) ($LOCKSTEP_TLS_INSECURE_SKIP_VERIFY)",
}

// registerConnect binds the connection flags to c on fs.
func registerConnect(fs *pflag.FlagSet, c *cassandra.ConnectOptions) {
	for _, s := range cassandra.ConnectSettings() {
		v := connectValue{c: c, name: s.Name}
		if s.Name == "tls" || s.Name == "tls-insecure-skip-verify" {
			fs.Var(boolConnectValue{v}, s.Name, connectUsage[s.Name])
			fs.Lookup(s.Name).NoOptDefVal = "true"
			continue
		}
		fs.Var(v, s.Name, connectUsage[s.Name])
	}
}

// connectFromEnv fills the connection flags not given from their
// variables, decides whether lockd serves a cluster (any connection flag
// given or variable set) and, if so, validates the settings (reading the
// password file) before anything listens or connects.
func (o *options) connectFromEnv(fs *pflag.FlagSet, getenv func(string) string) error {
	for _, s := range cassandra.ConnectSettings() {
		if fs.Changed(s.Name) {
			o.cluster = true
		}
		for _, env := range s.Env {
			if strings.TrimSpace(getenv(env)) != "" {
				o.cluster = true
			}
		}
	}
	if getenv("LOCKSTEP_PASSWORD") != "" {
		o.cluster = true
	}
	if err := o.conn.FromEnv(getenv, fs.Changed); err != nil {
		return err
	}
	if !o.cluster {
		return nil
	}
	return o.conn.Validate()
}

// connectValue is one connection setting as a flag value.
type connectValue struct {
	c    *cassandra.ConnectOptions
	name string
}

func (v connectValue) Set(s string) error { return v.c.Set(v.name, s) }
func (v connectValue) Type() string       { return "string" }

func (v connectValue) String() string {
	if v.c == nil {
		return ""
	}
	c := v.c
	switch v.name {
	case "hosts":
		return strings.Join(c.Hosts, ",")
	case "port":
		return strconv.Itoa(c.Port)
	case "keyspace":
		return c.Keyspace
	case "consistency":
		return c.Consistency.String()
	case "local-dc":
		return c.LocalDC
	case "timeout":
		return c.Timeout.String()
	case "username":
		return c.Username
	case "password-file":
		return c.PasswordFile
	case "tls":
		return strconv.FormatBool(c.TLS)
	case "tls-ca":
		return c.TLSCA
	case "tls-cert":
		return c.TLSCert
	case "tls-key":
		return c.TLSKey
	case "tls-server-name":
		return c.TLSServerName
	case "tls-insecure-skip-verify":
		return strconv.FormatBool(c.TLSInsecureSkipVerify)
	}
	return ""
}

// boolConnectValue is a connection setting that is a switch (--tls).
type boolConnectValue struct{ connectValue }

func (boolConnectValue) IsBoolFlag() bool { return true }
func (boolConnectValue) Type() string     { return "bool" }

// passwordOnCommandLine finds an attempt to pass the password as a flag
// value. It is refused before the flags are parsed, so the value is never
// echoed in an error.
func passwordOnCommandLine(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && (name == "password" || name == "pass" || name == "passwd") {
			return true
		}
	}
	return false
}

const passwordFlagRefused = "--password is not accepted: a password on the command line shows in ps and in shell history; " +
	"put it in the LOCKSTEP_PASSWORD environment variable or in a file named by --password-file"
