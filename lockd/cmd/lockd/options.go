package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/lockd"
	"github.com/lockstep-go/lockstep/queuelock"
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
	lockTTL           time.Duration
	maxWait           time.Duration
	shutdown          time.Duration
	drain             time.Duration
	separator         string
	fencing           bool
	evidence          queuelock.Evidence
	deadlock          bool
	intentionRange    bool
	localHandoff      int
	retain            time.Duration
	processID         string
	peerKeyFile       string
	metrics           bool
	ui                bool
	showVersion       bool
	logLevel          slog.Level
	// limits are the lock service's (lockd.Limits); http the HTTP
	// server's (httpserver.go).
	limits lockd.Limits
	http   httpLimits
	// conn is the cluster connection, lockctl's settings (flags and
	// LOCKSTEP_* variables alike); cluster says whether any was given:
	// without one lockd serves the embedded model.
	conn    cassandra.ConnectOptions
	cluster bool
}

// envFlags maps flags to the variables read when the flag is not given.
var envFlags = map[string]string{
	"listen":              "LOCKSTEP_LOCKD_LISTEN",
	"principals":          "LOCKSTEP_LOCKD_PRINCIPALS",
	"server-cert":         "LOCKSTEP_LOCKD_SERVER_CERT",
	"server-key":          "LOCKSTEP_LOCKD_SERVER_KEY",
	"client-ca":           "LOCKSTEP_LOCKD_CLIENT_CA",
	"require-client-cert": "LOCKSTEP_LOCKD_REQUIRE_CLIENT_CERT",
	"intention-range":     "LOCKSTEP_LOCKD_INTENTION_RANGE",
	"evidence":            "LOCKSTEP_LOCKD_EVIDENCE",
	"local-handoff":       "LOCKSTEP_LOCKD_LOCAL_HANDOFF",
	"retain":              "LOCKSTEP_LOCKD_RETAIN",
	"session-ttl":         "LOCKSTEP_LOCKD_SESSION_TTL",
	"lock-ttl":            "LOCKSTEP_LOCKD_LOCK_TTL",
	"max-wait":            "LOCKSTEP_LOCKD_MAX_WAIT",
	"drain":               "LOCKSTEP_LOCKD_DRAIN",
	"process-id":          "LOCKSTEP_LOCKD_PROCESS_ID",
	"metrics":             "LOCKSTEP_LOCKD_METRICS",
	"ui":                  "LOCKSTEP_LOCKD_UI",
	"peer-key-file":       "LOCKSTEP_LOCKD_PEER_KEY_FILE",
}

// parseOptions parses args, then fills flags not given from their
// variables. A bad value names the flag or the variable.
func parseOptions(args []string, getenv func(string) string, stderr io.Writer) (*options, error) {
	o := &options{conn: cassandra.DefaultConnectOptions()}
	fs := pflag.NewFlagSet("lockd", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.listen, "listen", "127.0.0.1:0", "address to serve on; port 0 picks a free one ($LOCKSTEP_LOCKD_LISTEN)")
	fs.StringVar(&o.principals, "principals", "", "JSON file of principals and their id prefixes; without it lockd runs in open mode, loopback only ($LOCKSTEP_LOCKD_PRINCIPALS)")
	fs.StringVar(&o.serverCert, "server-cert", "", "PEM certificate lockd serves TLS with ($LOCKSTEP_LOCKD_SERVER_CERT)")
	fs.StringVar(&o.serverKey, "server-key", "", "PEM key of --server-cert ($LOCKSTEP_LOCKD_SERVER_KEY)")
	fs.StringVar(&o.clientCA, "client-ca", "", "PEM CA that signs client certificates: verified when given ($LOCKSTEP_LOCKD_CLIENT_CA)")
	fs.BoolVar(&o.requireClientCert, "require-client-cert", false, "refuse TLS handshakes without a client certificate signed by --client-ca ($LOCKSTEP_LOCKD_REQUIRE_CLIENT_CERT)")
	fs.DurationVar(&o.sessionTTL, "session-ttl", 10*time.Second, "TTL of a session that asks none ($LOCKSTEP_LOCKD_SESSION_TTL)")
	fs.DurationVar(&o.lockTTL, "lock-ttl", 0, "TTL of the lock cells lockd writes, as the library's Options.TTL: whole seconds, at least 4s; a lockd that stops (killed, paused, cut off) keeps its locks at most about this long. Default: the library's, 30s ($LOCKSTEP_LOCKD_LOCK_TTL)")
	fs.DurationVar(&o.maxWait, "max-wait", 5*time.Minute, "longest a Lock call waits, whatever its deadline ($LOCKSTEP_LOCKD_MAX_WAIT)")
	fs.DurationVar(&o.shutdown, "shutdown-timeout", 10*time.Second, "how long a graceful shutdown may take")
	fs.DurationVar(&o.drain, "drain", lockd.DefaultDrain, "at a graceful shutdown, how long the clients of sessions that can move (given other lockds and a --peer-key-file) have to move them, with their locks, to another lockd before the sessions left are closed and their locks released; less than --shutdown-timeout ($LOCKSTEP_LOCKD_DRAIN)")
	fs.StringVar(&o.separator, "separator", "/", "separator of hierarchical ids; empty: flat ids")
	fs.BoolVar(&o.fencing, "fencing", true, "give every lock a fencing token")
	evidence := fs.String("evidence", "off", "evidence-ordered fencing (queuelock.Options.Evidence; docs/algorithms.md, section 5.3): \"record\" writes each lock's token into its queue partition as the lock is released; \"use\" records too, and draws a lock of mode new's token beside its claim (or takes it from values such a draw reserved ahead), saving two sequential requests. A fleet moves in two steps: every process that takes fenced locks of the tables to record, then to use. Needs --fencing. \"off\": neither ($LOCKSTEP_LOCKD_EVIDENCE)")
	fs.BoolVar(&o.deadlock, "deadlock-detection", true, "detect cycles of waits across the fleet and fail one Lock of each with DEADLOCK (needs the lock_waits table)")
	fs.IntVar(&o.localHandoff, "local-handoff", 8, "hand an exclusive lock a session unlocks to the next session of this lockd waiting for it, in memory, up to this many times in a row before releasing it in the store for other processes (migration.Options.LocalHandoff; docs/algorithms.md, section 4.15). A lock a peer token names (a fail-over client reads one after each Lock) is shared and moves to another lockd with its session; from then on its Unlock releases it in the store instead of handing it on. 0: off ($LOCKSTEP_LOCKD_LOCAL_HANDOFF)")
	fs.DurationVar(&o.retain, "retain", 20*time.Millisecond, "with --local-handoff, keep an exclusive lock a session unlocks with no session of this lockd waiting for it held in the store for up to this long, so that a session's next Lock of it here is granted in memory; released at once when another process's waiter shows in the queue lock's line (looked for once per lease renewal), on a request of another access, and on loss (migration.Options.Retain; docs/algorithms.md, section 4.15). 0: off ($LOCKSTEP_LOCKD_RETAIN)")
	fs.BoolVar(&o.intentionRange, "intention-range", false, "keep the owner cells of intention locks (IS, IX) in a column range that intention claims skip (queuelock.Options.IntentionRange): reads of a hot ancestor stop growing with the locks below it. A stored format: turn it on only once every process locking the tables runs a version that reads it ($LOCKSTEP_LOCKD_INTENTION_RANGE)")
	fs.StringVar(&o.processID, "process-id", "", "this lockd's id in the fleet census (default: host name and random bits) ($LOCKSTEP_LOCKD_PROCESS_ID)")
	fs.StringVar(&o.peerKeyFile, "peer-key-file", "", "file of the key (at least 32 bytes, the same on every lockd of the cluster) that lets another lockd adopt this one's GetToken tokens; without it tokens stay within this lockd ($LOCKSTEP_LOCKD_PEER_KEY_FILE)")
	fs.BoolVar(&o.metrics, "metrics", true, "serve Prometheus metrics (the Locker's and lockd's own) at /metrics on the --listen address ($LOCKSTEP_LOCKD_METRICS)")
	fs.BoolVar(&o.ui, "ui", false, "serve the read-only web view at /ui/ on the --listen address: the phase, census, hottest ids, sessions, deadlocks and charts; in principals mode only to principals granted \"web_view\" ($LOCKSTEP_LOCKD_UI)")
	fs.BoolVar(&o.showVersion, "version", false, "print lockd's version and the commit it was built from, then exit")
	level := fs.String("log-level", "info", "debug, info, warn or error")
	registerLimits(fs, o)
	registerConnect(fs, &o.conn)
	if passwordOnCommandLine(args) {
		return nil, errors.New(passwordFlagRefused)
	}
	if err := fs.Parse(args); err != nil {
		return nil, err // pflag.ErrHelp for --help: run prints the usage and returns nil
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
	if o.sessionTTL <= 0 || o.maxWait <= 0 || o.shutdown <= 0 || o.drain <= 0 {
		return nil, fmt.Errorf("--session-ttl, --max-wait, --shutdown-timeout and --drain must be positive")
	}
	if o.drain >= o.shutdown {
		return nil, fmt.Errorf("--drain %v must be less than --shutdown-timeout %v: the releases of the sessions left after the drain need time too", o.drain, o.shutdown)
	}
	if err := o.http.validate(); err != nil {
		return nil, err
	}
	e, err := parseEvidence(*evidence, o.fencing)
	if err != nil {
		return nil, err
	}
	o.evidence = e
	if o.localHandoff < 0 {
		return nil, fmt.Errorf("--local-handoff %d: want 0 (off) or the most local handoffs in a row, e.g. 8", o.localHandoff)
	}
	if o.retain < 0 {
		return nil, fmt.Errorf("--retain %v: want 0 (off) or how long to keep an unlocked lock for this lockd's sessions, e.g. 20ms", o.retain)
	}
	if o.retain > 0 && o.localHandoff < 1 {
		return nil, fmt.Errorf("--retain %v needs --local-handoff of at least 1: a retained lock is granted again in memory, as a local handoff", o.retain)
	}
	if o.lockTTL < 0 {
		return nil, fmt.Errorf("--lock-ttl %v: want a positive number of whole seconds (at least 4s), or leave it out for the library's default", o.lockTTL)
	}
	if err := o.connectFromEnv(fs, getenv); err != nil {
		return nil, err
	}
	return o, nil
}

// parseEvidence reads --evidence: off, record or use, the last two only
// with fencing tokens.
func parseEvidence(v string, fencing bool) (queuelock.Evidence, error) {
	for _, e := range []queuelock.Evidence{queuelock.EvidenceOff, queuelock.EvidenceRecord, queuelock.EvidenceUse} {
		if v != e.String() {
			continue
		}
		if e != queuelock.EvidenceOff && !fencing {
			return e, fmt.Errorf("--evidence %s needs --fencing: evidence records fencing tokens; leave --fencing on, or set --evidence off", v)
		}
		return e, nil
	}
	return queuelock.EvidenceOff, fmt.Errorf("--evidence %q: want off, record or use (a fleet goes to record everywhere before any process uses it)", v)
}
