//go:build integration

package cassandra_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/cassandra/securetest"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/schema"
	"github.com/lockstep-go/lockstep/storetest"
)

// The tests in this file run against the authenticated TLS node of
// scripts/cassandra up --secure and are skipped, saying how to start it,
// when LOCKSTEP_SECURE_HOSTS is empty:
//
//	eval "$(scripts/cassandra up --nodes 1 --secure)"
//	go test -tags integration -run Secure ./cassandra/
//
// Each run creates its own keyspace and the three roles of docs/security.md
// (schema admin, application, operator) with fresh random passwords, granted
// exactly what securetest (the code form of the guide) lists.

// secureFleet is one run's keyspace and roles on the secure node.
type secureFleet struct {
	env               securetest.Env
	ks                string
	tables            schema.Tables
	admin, app, op    string
	adminS, appS, opS *gocql.Session
	appStore, opStore *cassandra.Store
}

func randomSecret(t testing.TB) string {
	b := make([]byte, 18)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}

func execAll(t testing.TB, s *gocql.Session, stmts ...string) {
	t.Helper()
	for _, stmt := range stmts {
		require.NoError(t, s.Query(stmt).Exec(), stmt)
	}
}

func newSecureFleet(t *testing.T) *secureFleet {
	env := securetest.Load(t)
	sfx := strconv.FormatInt(time.Now().UnixNano(), 36)
	f := &secureFleet{
		env: env, ks: "lockstep_sec_" + sfx, tables: schema.DefaultTables(),
		admin: "lockstep_admin_" + sfx, app: "lockstep_app_" + sfx, op: "lockstep_operator_" + sfx,
	}
	adminPW, appPW, opPW := randomSecret(t), randomSecret(t), randomSecret(t)
	root := env.Session(t, env.Superuser, env.SuperuserPassword(t))
	execAll(t, root,
		securetest.CreateRoleCQL(f.admin, adminPW), securetest.AdminGrantCQL(f.admin),
		securetest.CreateRoleCQL(f.app, appPW), securetest.CreateRoleCQL(f.op, opPW))
	t.Cleanup(func() {
		for _, r := range []string{f.app, f.op, f.admin} {
			_ = root.Query("DROP ROLE IF EXISTS " + r).Exec()
		}
		_ = root.Query("DROP KEYSPACE IF EXISTS " + f.ks).Exec()
	})

	// The schema admin creates the keyspace and tables, and, as their
	// creator, may grant on them.
	f.adminS = env.Session(t, f.admin, adminPW)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	require.NoError(t, schema.Apply(ctx, f.adminS, f.ks, schema.WithCreateKeyspace(map[string]string{
		"class": "SimpleStrategy", "replication_factor": strconv.Itoa(min(len(env.Hosts), 3)),
	})))
	for _, g := range securetest.AppGrants(f.tables) {
		execAll(t, f.adminS, g.CQL(f.ks, f.app))
	}
	for _, g := range securetest.OperatorGrants(f.tables) {
		execAll(t, f.adminS, g.CQL(f.ks, f.op))
	}

	var err error
	f.appS = env.Session(t, f.app, appPW)
	f.appStore, err = cassandra.New(f.appS, f.ks)
	require.NoError(t, err)
	f.opS = env.Session(t, f.op, opPW)
	f.opStore, err = cassandra.New(f.opS, f.ks)
	require.NoError(t, err)
	return f
}

// moveTo steps the fleet phase to target as the operator role.
func (f *secureFleet) moveTo(t *testing.T, target lockstep.Mode) {
	t.Helper()
	ctrl, err := migration.NewController(f.opStore, nil)
	require.NoError(t, err)
	for range 3 {
		p, err := ctrl.Get(t.Context())
		require.NoError(t, err)
		if p.Mode == target && !p.Pending() {
			return
		}
		require.NoError(t, ctrl.Set(t.Context(), target))
	}
	t.Fatalf("phase did not reach %v in 3 steps", target)
}

// lockOnce takes and releases one fenced lock in mode m as the app role.
func (f *secureFleet) lockOnce(ctx context.Context, m lockstep.Mode, id string) (token int64, err error) {
	clk := &clock.Local{}
	global, err := clock.NewGlobal(f.appStore, f.tables.GlobalTime, clk)
	if err != nil {
		return 0, err
	}
	lk, err := migration.New(f.appStore, migration.Static(m), &migration.Options{Clock: clk, Fencing: global})
	if err != nil {
		return 0, err
	}
	defer lk.Close(context.WithoutCancel(ctx))
	l, err := lk.Lock(ctx, id)
	if err != nil {
		return 0, err
	}
	token = l.(lockstep.Fenced).Token()
	return token, l.Unlock(context.WithoutCancel(ctx))
}

// TestSecure_AppRole runs the library as the application role, which holds
// only SELECT and MODIFY on the lock keyspace's tables (SELECT alone on the
// phase), over TLS with a client certificate.
func TestSecure_AppRole(t *testing.T) {
	f := newSecureFleet(t)

	t.Run("LocksInEveryMode", func(t *testing.T) {
		var last int64
		for _, m := range []lockstep.Mode{lockstep.ModeLegacy, lockstep.ModeCombined, lockstep.ModeNew} {
			if m == lockstep.ModeNew {
				f.moveTo(t, lockstep.ModeCombined)
				f.moveTo(t, lockstep.ModeNew)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			token, err := f.lockOnce(ctx, m, "secure/every-mode")
			cancel()
			require.NoError(t, err, "mode %v", m)
			assert.Greater(t, token, last, "mode %v: fencing tokens must increase across owners", m)
			last = token
		}
	})

	t.Run("CannotChangeSchema", func(t *testing.T) {
		for _, stmt := range []string{
			"CREATE TABLE " + f.ks + ".intruder (k text PRIMARY KEY)",
			"DROP TABLE " + f.ks + "." + f.tables.QueueLock,
			"ALTER TABLE " + f.ks + "." + f.tables.QueueLock + " WITH gc_grace_seconds = 0",
			"CREATE KEYSPACE intruder WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		} {
			for _, s := range []*gocql.Session{f.appS, f.opS} {
				err := s.Query(stmt).Exec()
				requireUnauthorized(t, err, stmt)
			}
		}
		// MODIFY covers TRUNCATE in Cassandra, so only a table the role
		// may not modify is safe from it (docs/security.md).
		requireUnauthorized(t, f.appS.Query("TRUNCATE "+f.ks+"."+f.tables.FleetPhase).Exec(), "app truncating the phase")
		requireUnauthorized(t, f.opS.Query("TRUNCATE "+f.ks+"."+f.tables.FleetCensus).Exec(), "operator truncating the census")
		// Nor may it write the phase: only the operator moves the fleet.
		ctrl, err := migration.NewController(f.appStore, nil)
		require.NoError(t, err)
		err = ctrl.Set(t.Context(), lockstep.ModeCombined)
		requireUnauthorized(t, err, "app role moving the phase")
	})

	t.Run("Conformance", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T) storetest.Harness {
			return storetest.Harness{
				Store:   f.appStore,
				Table:   f.tables.QueueLock,
				Now:     func() int64 { return time.Now().UnixMicro() },
				Advance: func(_ testing.TB, d time.Duration) { time.Sleep(d) },
			}
		})
	})

	// Without MODIFY on the queue table a lock in mode new cannot be
	// taken: the store's refusal wraps lockstep.ErrRefused, so Lock fails
	// at once (no retry can grant a permission) with the store's error,
	// which names the permission, the table and where the grants are
	// listed.
	t.Run("RevokedModifyFailsLock", func(t *testing.T) {
		g := securetest.Grant{Permission: "MODIFY", Table: f.tables.QueueLock}
		execAll(t, f.adminS, g.RevokeCQL(f.ks, f.app))
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		start := time.Now()
		_, err := f.lockOnce(ctx, lockstep.ModeNew, "secure/revoked")
		require.Error(t, err)
		assert.ErrorIs(t, err, lockstep.ErrRefused)
		assert.NotErrorIs(t, err, context.DeadlineExceeded)
		assert.Less(t, time.Since(start), 10*time.Second, "failed at once, not at the deadline")
		for _, want := range []string{"no MODIFY permission", f.ks + "." + f.tables.QueueLock, f.app, "docs/security.md"} {
			assert.Contains(t, err.Error(), want)
		}
		t.Logf("the error a user sees: %v", err)

		execAll(t, f.adminS, g.CQL(f.ks, f.app))
		ctx, cancel = context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		_, err = f.lockOnce(ctx, lockstep.ModeNew, "secure/revoked")
		require.NoError(t, err, "after granting MODIFY again")
	})

	// Ready finds a role without MODIFY at startup, before any Lock: its
	// write probe (one cell with a short TTL in a partition no lock uses,
	// then deleted) is refused, and the error names the table and the GRANT
	// that is missing.
	t.Run("RevokedModifyFailsReady", func(t *testing.T) {
		ready := func() error {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			ctrl, err := migration.NewController(f.opStore, nil)
			require.NoError(t, err)
			p, err := ctrl.Get(ctx) // whichever phase the subtests before left
			require.NoError(t, err)
			clk := &clock.Local{}
			global, err := clock.NewGlobal(f.appStore, f.tables.GlobalTime, clk)
			require.NoError(t, err)
			lk, err := migration.New(f.appStore, migration.Static(p.Mode), &migration.Options{Clock: clk, Fencing: global})
			require.NoError(t, err)
			defer lk.Close(context.WithoutCancel(ctx))
			return lk.Ready(ctx)
		}
		require.NoError(t, ready(), "with every grant docs/security.md lists")
		for _, table := range []string{f.tables.QueueLock, f.tables.FleetCensus} {
			g := securetest.Grant{Permission: "MODIFY", Table: table}
			execAll(t, f.adminS, g.RevokeCQL(f.ks, f.app))
			err := ready()
			execAll(t, f.adminS, g.CQL(f.ks, f.app))
			require.Error(t, err, "MODIFY on %s revoked", table)
			assert.ErrorIs(t, err, migration.ErrNotReady)
			assert.ErrorIs(t, err, lockstep.ErrRefused)
			assert.NotErrorIs(t, err, context.DeadlineExceeded)
			for _, want := range []string{
				"migration: not ready: table " + table + " refuses a write: ",
				"no MODIFY permission", f.ks + "." + table,
				"GRANT MODIFY ON TABLE <keyspace>." + table + " TO <role>",
			} {
				assert.Contains(t, err.Error(), want)
			}
			t.Logf("the error a user sees: %v", err)
		}
		require.NoError(t, ready(), "after granting MODIFY again")
	})
}

func requireUnauthorized(t *testing.T, err error, what string) {
	t.Helper()
	require.Error(t, err, what)
	var reqErr gocql.RequestError
	require.True(t, errors.As(err, &reqErr), "%s: %v is not a Cassandra error", what, err)
	require.Equal(t, gocql.ErrCodeUnauthorized, reqErr.Code(), "%s: %v", what, err)
}

// TestSecure_WrongPassword: a refused login is an error that says so.
func TestSecure_WrongPassword(t *testing.T) {
	env := securetest.Load(t)
	_, err := env.Cluster(t, env.Superuser, "not-the-password", env.CA).CreateSession()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "password are incorrect")
	_, err = env.Cluster(t, "no_such_role", "x", env.CA).CreateSession()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "password are incorrect")
}

// TestSecure_WrongCA: a node whose certificate the client's CA did not sign
// is refused, whatever the credentials.
func TestSecure_WrongCA(t *testing.T) {
	env := securetest.Load(t)
	_, err := env.Cluster(t, env.Superuser, env.SuperuserPassword(t), env.WrongCA).CreateSession()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "certificate signed by unknown authority")
}
