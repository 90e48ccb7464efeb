package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// options are lockd's flags.
type options struct {
	listen            string
	principals        string
	serverCert        string
	serverKey         string
	clientCA          string
	requireClientCert bool
	sessionTTL        time.Duration
	maxWait           time.Duration
	shutdown          time.Duration
	separator         string
	fencing           bool
	processID         string
	logLevel          slog.Level
}

// envFlags maps flags to the variables read when the flag is not given.
var envFlags = map[string]string{
	"listen":              "LOCKSTEP_LOCKD_LISTEN",
	"principals":          "LOCKSTEP_LOCKD_PRINCIPALS",
	"server-cert":         "LOCKSTEP_LOCKD_SERVER_CERT",
	"server-key":          "LOCKSTEP_LOCKD_SERVER_KEY",
	"client-ca":           "LOCKSTEP_LOCKD_CLIENT_CA",
	"require-client-cert": "LOCKSTEP_LOCKD_REQUIRE_CLIENT_CERT",
	"session-ttl":         "LOCKSTEP_LOCKD_SESSION_TTL",
	"max-wait":            "LOCKSTEP_LOCKD_MAX_WAIT",
	"process-id":          "LOCKSTEP_LOCKD_PROCESS_ID",
}

// parseOptions parses args, then fills flags not given from their
// variables. A bad value names the flag or the variable.
func parseOptions(args []string, getenv func(string) string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := pflag.NewFlagSet("lockd", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.listen, "listen", "127.0.0.1:0", "address to serve on; port 0 picks a free one ($LOCKSTEP_LOCKD_LISTEN)")
	fs.StringVar(&o.principals, "principals", "", "JSON file of principals and their id prefixes; without it lockd runs in open mode, loopback only ($LOCKSTEP_LOCKD_PRINCIPALS)")
	fs.StringVar(&o.serverCert, "server-cert", "", "PEM certificate lockd serves TLS with ($LOCKSTEP_LOCKD_SERVER_CERT)")
	fs.StringVar(&o.serverKey, "server-key", "", "PEM key of --server-cert ($LOCKSTEP_LOCKD_SERVER_KEY)")
	fs.StringVar(&o.clientCA, "client-ca", "", "PEM CA that signs client certificates: verified when given ($LOCKSTEP_LOCKD_CLIENT_CA)")
	fs.BoolVar(&o.requireClientCert, "require-client-cert", false, "refuse TLS handshakes without a client certificate signed by --client-ca ($LOCKSTEP_LOCKD_REQUIRE_CLIENT_CERT)")
	fs.DurationVar(&o.sessionTTL, "session-ttl", 10*time.Second, "TTL of a session that asks none ($LOCKSTEP_LOCKD_SESSION_TTL)")
	fs.DurationVar(&o.maxWait, "max-wait", 5*time.Minute, "longest a Lock call waits, whatever its deadline ($LOCKSTEP_LOCKD_MAX_WAIT)")
	fs.DurationVar(&o.shutdown, "shutdown-timeout", 10*time.Second, "how long a graceful shutdown may take")
	fs.StringVar(&o.separator, "separator", "/", "separator of hierarchical ids; empty: flat ids")
	fs.BoolVar(&o.fencing, "fencing", true, "give every lock a fencing token")
	fs.StringVar(&o.processID, "process-id", "", "this lockd's id in the fleet census (default: host name and random bits) ($LOCKSTEP_LOCKD_PROCESS_ID)")
	level := fs.String("log-level", "info", "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: lockd takes only flags (lockd --help lists them)", fs.Arg(0))
	}
	for flag, env := range envFlags {
		if fs.Changed(flag) {
			continue
		}
		if v := strings.TrimSpace(getenv(env)); v != "" {
			if err := fs.Set(flag, v); err != nil {
				return nil, fmt.Errorf("%s=%q (for --%s): %w", env, v, flag, err)
			}
		}
	}
	if err := o.logLevel.UnmarshalText([]byte(*level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", *level)
	}
	if o.sessionTTL <= 0 || o.maxWait <= 0 || o.shutdown <= 0 {
		return nil, fmt.Errorf("--session-ttl, --max-wait and --shutdown-timeout must be positive")
	}
	return o, nil
}

// clusterVars are lockctl's connection variables. This first cut of lockd
// serves the embedded model only: lockctl's connection, TLS and auth
// options live in its package main and must move to a shared package
// before lockd can take them without copying them. Until then a lockd
// pointed at a cluster refuses to start rather than serve a private store
// its clients would mistake for the fleet's.
var clusterVars = []string{"LOCKSTEP_HOSTS", "CASSANDRA_HOSTS", "LOCKSTEP_KEYSPACE", "LOCKSTEP_USERNAME",
	"LOCKSTEP_PASSWORD", "LOCKSTEP_PASSWORD_FILE", "LOCKSTEP_TLS", "LOCKSTEP_TLS_CA", "LOCKSTEP_TLS_CERT", "LOCKSTEP_TLS_KEY"}

// refuseCluster refuses to start when the environment names a cluster.
func (o *options) refuseCluster(getenv func(string) string) error {
	for _, v := range clusterVars {
		if getenv(v) != "" {
			return fmt.Errorf("%s is set, but this lockd serves only the embedded model store: connecting to a cluster "+
				"(lockctl's --hosts, TLS and auth options) is not in this build yet; unset it to serve the embedded model", v)
		}
	}
	return nil
}
