//go:build integration

package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep/cassandra/securetest"
	"github.com/lockstep-go/lockstep/schema"
)

// TestSecure_Lockctl runs the lockctl binary against the authenticated TLS
// node of scripts/cassandra up --secure (skipped, saying how to start it,
// when LOCKSTEP_SECURE_HOSTS is empty), as the schema admin and operator
// roles of docs/security.md. It relies only on lockctl's connection flags,
// environment variables and exit codes: 0 success, 3 unreachable cluster or
// authentication/TLS failure.
func TestSecure_Lockctl(t *testing.T) {
	env := securetest.Load(t)
	bin := buildSecureLockctl(t)
	sfx := strconv.FormatInt(time.Now().UnixNano(), 36)
	ks := "lockctl_sec_" + sfx
	admin, op := "lockctl_admin_"+sfx, "lockctl_operator_"+sfx
	adminPW, opPW := secureSecret(t), secureSecret(t)

	root := env.Session(t, env.Superuser, env.SuperuserPassword(t))
	for _, stmt := range []string{
		securetest.CreateRoleCQL(admin, adminPW), securetest.AdminGrantCQL(admin),
		securetest.CreateRoleCQL(op, opPW),
	} {
		require.NoError(t, root.Query(stmt).Exec(), stmt)
	}
	t.Cleanup(func() {
		_ = root.Query("DROP ROLE IF EXISTS " + op).Exec()
		_ = root.Query("DROP ROLE IF EXISTS " + admin).Exec()
		_ = root.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
	})

	conn := []string{
		"--hosts", strings.Join(env.Hosts, ","), "--keyspace", ks,
		"--tls-ca", env.CA, "--tls-cert", env.Cert, "--tls-key", env.Key,
	}
	opPWFile := filepath.Join(t.TempDir(), "operator.password")
	require.NoError(t, os.WriteFile(opPWFile, []byte(opPW+"\n"), 0o600))

	t.Run("SchemaApplyAsAdminWithPasswordFromEnv", func(t *testing.T) {
		r := runSecureLockctl(t, bin, []string{"LOCKSTEP_PASSWORD=" + adminPW},
			append(conn, "--username", admin, "schema", "apply", "--replication",
				"class=SimpleStrategy,replication_factor="+strconv.Itoa(min(len(env.Hosts), 3)))...)
		require.Equal(t, 0, r.code, "%s", r)
		// The admin created the tables, so it may grant on them.
		adminS := env.Session(t, admin, adminPW)
		for _, g := range securetest.OperatorGrants(schema.DefaultTables()) {
			require.NoError(t, adminS.Query(g.CQL(ks, op)).Exec())
		}
	})

	t.Run("OperatorReadsWithPasswordFile", func(t *testing.T) {
		r := runSecureLockctl(t, bin, nil, append(conn, "--username", op, "--password-file", opPWFile, "--output", "json", "phase", "get")...)
		require.Equal(t, 0, r.code, "%s", r)
		require.True(t, json.Valid([]byte(r.stdout)), "phase get --output json: %s", r)
		assert.Contains(t, r.stdout, "legacy")

		r = runSecureLockctl(t, bin, nil, append(conn, "--username", op, "--password-file", opPWFile, "--output", "json", "fleet")...)
		require.Equal(t, 0, r.code, "%s", r)
		require.True(t, json.Valid([]byte(r.stdout)), "fleet --output json: %s", r)
	})

	t.Run("OperatorMovesPhaseWithEnvOnly", func(t *testing.T) {
		// Every connection setting from LOCKSTEP_* variables, no flag.
		vars := []string{
			"LOCKSTEP_HOSTS=" + strings.Join(env.Hosts, ","), "LOCKSTEP_KEYSPACE=" + ks,
			"LOCKSTEP_TLS_CA=" + env.CA, "LOCKSTEP_TLS_CERT=" + env.Cert, "LOCKSTEP_TLS_KEY=" + env.Key,
			"LOCKSTEP_USERNAME=" + op, "LOCKSTEP_PASSWORD=" + opPW, "LOCKSTEP_OUTPUT=json",
		}
		r := runSecureLockctl(t, bin, vars, "phase", "set", "combined")
		require.Equal(t, 0, r.code, "%s", r)
		r = runSecureLockctl(t, bin, vars, "phase", "get")
		require.Equal(t, 0, r.code, "%s", r)
		require.True(t, json.Valid([]byte(r.stdout)), "%s", r)
		assert.Contains(t, r.stdout, "combined")
	})

	t.Run("WrongPasswordExits3", func(t *testing.T) {
		r := runSecureLockctl(t, bin, []string{"LOCKSTEP_PASSWORD=not-" + opPW}, append(conn, "--username", op, "phase", "get")...)
		assert.Equal(t, 3, r.code, "%s", r)
		assert.NotEmpty(t, r.stderr)
		assert.NotContains(t, r.stderr+r.stdout, opPW, "the password must never be printed")
	})

	t.Run("WrongCAExits3", func(t *testing.T) {
		bad := []string{
			"--hosts", strings.Join(env.Hosts, ","), "--keyspace", ks,
			"--tls-ca", env.WrongCA, "--tls-cert", env.Cert, "--tls-key", env.Key,
		}
		r := runSecureLockctl(t, bin, []string{"LOCKSTEP_PASSWORD=" + opPW}, append(bad, "--username", op, "phase", "get")...)
		assert.Equal(t, 3, r.code, "%s", r)
		assert.NotEmpty(t, r.stderr)
	})
}

func secureSecret(t *testing.T) string {
	b := make([]byte, 18)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}

// buildSecureLockctl builds this directory's binary into a temporary directory.
func buildSecureLockctl(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "lockctl")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

type secureRun struct {
	code           int
	stdout, stderr string
	args           []string
}

func (r secureRun) String() string {
	return "lockctl " + strings.Join(r.args, " ") + " -> exit " + strconv.Itoa(r.code) +
		"\nstdout: " + r.stdout + "\nstderr: " + r.stderr
}

// runSecureLockctl runs bin with args and, in place of the test's own LOCKSTEP_*
// and CASSANDRA_HOSTS variables, exactly vars.
func runSecureLockctl(t *testing.T, bin string, vars []string, args ...string) secureRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LOCKSTEP_") && !strings.HasPrefix(kv, "CASSANDRA_HOSTS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, vars...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := secureRun{stdout: stdout.String(), stderr: stderr.String(), args: args}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	default:
		t.Fatalf("running lockctl: %v", err)
	}
	return r
}
