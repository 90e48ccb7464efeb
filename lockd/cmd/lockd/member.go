package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// openStore returns the store lockd serves, a description of it for the
// line that says where lockd serves, and what closes it. Without connection
// settings it is the embedded model; with them, the global cassandra store
// on the cluster and keyspace they name. lockd creates nothing there: the
// keyspace and tables come from lockctl schema apply, and lockd's role needs
// only SELECT and MODIFY on them (docs/security.md).
func openStore(ctx context.Context, o *options, stderr io.Writer) (lockstep.Store, string, func(), error) {
	if !o.cluster {
		store, err := embeddedStore(ctx, lockstep.ModeNew)
		return store, "embedded model", func() {}, err
	}
	cluster, err := o.conn.ClusterConfig()
	if err != nil {
		return nil, "", nil, err
	}
	if o.conn.TLSInsecureSkipVerify {
		fmt.Fprint(stderr, insecureWarning)
	}
	where := o.conn.Describe()
	session, err := cluster.CreateSession() // no ctx: --timeout bounds it
	if err != nil {
		return nil, "", nil, fmt.Errorf("connecting to %s: %w; check --hosts and --port (LOCKSTEP_HOSTS, LOCKSTEP_PORT), "+
			"the login (--username, LOCKSTEP_PASSWORD or --password-file) and TLS (--tls-ca, --tls-server-name, and "+
			"--tls-cert/--tls-key if the nodes require a client certificate), as for lockctl", where, err)
	}
	store, err := o.conn.NewStore(session)
	if err != nil {
		session.Close()
		return nil, "", nil, err
	}
	return store, where + ", keyspace " + o.conn.Keyspace, session.Close, nil
}

const insecureWarning = "lockd: WARNING: --tls-insecure-skip-verify: the nodes' certificates are NOT verified; " +
	"anyone on the network path can pose as the cluster and read the password and every lock. Use --tls-ca instead.\n"

// schemaHint says what to do when lockd cannot read or write its tables on
// a cluster: they are lockctl's to create, and the role's to be granted.
func schemaHint(o *options, err error) error {
	if !o.cluster {
		return err
	}
	return fmt.Errorf("%w; on a cluster lockd creates nothing: create the schema with lockctl --keyspace %s schema apply, "+
		"and grant lockd's role SELECT and MODIFY on the keyspace's tables", err, o.conn.Keyspace)
}

// embeddedStore returns the in-memory model store, with the phase moved to
// phase (a fresh embedded fleet has no legacy process to wait for).
func embeddedStore(ctx context.Context, phase lockstep.Mode) (lockstep.Store, error) {
	store := model.New(&clock.Local{})
	ctl, err := migration.NewController(store, nil)
	if err != nil {
		return nil, err
	}
	for _, step := range []lockstep.Mode{lockstep.ModeCombined, lockstep.ModeNew} {
		if phase < step {
			break
		}
		if err := ctl.Set(ctx, step); err != nil {
			return nil, fmt.Errorf("embedded store: set phase %v: %w", step, err)
		}
	}
	return store, nil
}

// join builds the migration.Locker of this lockd on store: an ordinary
// fleet process, in the census, following the phase (PhaseFlag), with
// hierarchical ids, fencing tokens and deadlock detection (the fleet's
// lock_waits table, so cycles through Go processes are seen too).
func join(store lockstep.Store, o *options, log *slog.Logger, obs lockstep.Observer) (*migration.Locker, error) {
	clk := &clock.Local{}
	flag, err := migration.NewPhaseFlag(store, &migration.PhaseFlagOptions{Clock: clk})
	if err != nil {
		return nil, err
	}
	opts := &migration.Options{Clock: clk, ProcessID: o.processID, Separator: o.separator, Logger: log, Version: "lockd", Observer: obs}
	if o.lockTTL > 0 { // the library checks it (whole seconds, at least 4s) and says what to use
		opts.Queue, opts.Legacy = &queuelock.Options{TTL: o.lockTTL}, &shadowlock.Options{TTL: o.lockTTL}
	}
	if o.intentionRange {
		if opts.Queue == nil {
			opts.Queue = &queuelock.Options{}
		}
		opts.Queue.IntentionRange = true
	}
	if o.evidence != queuelock.EvidenceOff {
		if opts.Queue == nil {
			opts.Queue = &queuelock.Options{}
		}
		opts.Queue.Evidence = o.evidence
	}
	opts.LocalHandoff, opts.Retain = o.localHandoff, o.retain
	if o.deadlock {
		opts.Deadlock = &lockstep.DeadlockDetection{} // the library's defaults: published after 1s of waiting
	}
	if o.fencing {
		if opts.Fencing, err = clock.NewGlobal(store, "", clk); err != nil {
			return nil, err
		}
	}
	l, err := migration.New(store, flag, opts)
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := l.Ready(rctx); err != nil {
		_ = l.Close(context.Background())
		return nil, err
	}
	return l, nil
}
