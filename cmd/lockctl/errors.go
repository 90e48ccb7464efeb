package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep/migration"
)

// Exit codes (see the package documentation).
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitUnreachable = 3
	exitRefused     = 4
	exitLost        = 5 // lock: the lock was lost while its command ran
)

// exitStatus is the exit status of the command lock ran under the lock:
// lockctl exits with it and reports nothing of its own.
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("the command exited with status %d", int(s)) }

// exitError carries the exit code of an error that is not a plain failure.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks err as bad usage: exit 2, nothing was done.
func usageError(err error) error {
	var ee *exitError
	if err == nil || errors.As(err, &ee) {
		return err // nothing to mark, or marked already (e.g. a refusal)
	}
	return &exitError{code: exitUsage, err: err}
}

// refusedError marks err as a refusal: exit 4, nothing was changed.
func refusedError(err error) error { return &exitError{code: exitRefused, err: err} }

// exitCode maps an error returned by a command to the process's exit code.
func exitCode(err error) int {
	var ee *exitError
	var me *migration.MoveError
	var status exitStatus
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &me):
		return exitRefused
	}
	return exitFailed
}

// connectError explains why a session could not be created, with what to
// do, and exits 3. The driver reports most causes only as text, so the kind
// is read from it.
func connectError(o *options, err error) error {
	where := describeHosts(o)
	msg := strings.ToLower(err.Error())
	var e error
	switch {
	case containsAny(msg, "authentication", "credentials", "username", "password", "unauthorized", "authenticator"):
		if o.Username == "" {
			e = fmt.Errorf("%s requires a login: %w; give --username (or LOCKSTEP_USERNAME) and the password in "+
				"LOCKSTEP_PASSWORD or a file named by --password-file", where, err)
		} else {
			e = fmt.Errorf("%s refused the login of user %q: %w; check --username and the password in "+
				"LOCKSTEP_PASSWORD or --password-file", where, o.Username, err)
		}
	case containsAny(msg, "x509", "tls:", "certificate", "handshake"):
		e = fmt.Errorf("TLS with %s failed: %w; give the CA that signed the nodes' certificates with --tls-ca, the name "+
			"they carry with --tls-server-name, and a client certificate with --tls-cert/--tls-key if the nodes require one", where, err)
	default:
		hint := "check --hosts and --port (LOCKSTEP_HOSTS, LOCKSTEP_PORT), that the nodes run, and whether they need --tls"
		if o.TLS {
			hint = "check --hosts and --port (LOCKSTEP_HOSTS, LOCKSTEP_PORT), that the nodes run, and that they accept TLS (--tls is on)"
		}
		e = fmt.Errorf("cannot reach %s within --timeout %v: %w; %s", where, o.Timeout, err, hint)
	}
	return &exitError{code: exitUnreachable, err: e}
}

// describeHosts names the contact points and the port used for those given
// without one, e.g. "Cassandra at 10.0.0.1,10.0.0.2 port 9042".
func describeHosts(o *options) string { return o.Describe() }

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// oneLine flattens an error message to one line (driver and joined errors
// may span several) and escapes what is left that a terminal would act on
// (text): messages carry ids and names from the store and from lockd.
func oneLine(err error) string {
	return text(strings.Join(strings.Fields(err.Error()), " "))
}

// withHint adds what to do to a failure a user can fix: a keyspace or table
// that does not exist (apply the schema) or a role without a permission
// (grant it). Other errors are returned as they are.
func withHint(err error, o *options) error {
	if err == nil {
		return nil
	}
	var req gocql.RequestError
	isReq := errors.As(err, &req)
	msg := err.Error()
	switch {
	case isReq && req.Code() == gocql.ErrCodeUnauthorized:
		return fmt.Errorf("%w; the role %q lacks a permission on keyspace %s: grant it SELECT and MODIFY on the lock tables "+
			"(schema apply needs CREATE as well)", err, o.Username, o.Keyspace)
	case errors.As(err, new(*hinted)):
		return err // says what to do already
	case missingKeyspace(err) || missing(msg) && strings.Contains(strings.ToLower(msg), "table "):
		return fmt.Errorf("%w; create the schema with: lockctl --keyspace %s schema apply (add --replication, e.g. "+
			"class=NetworkTopologyStrategy,dc1=3, to create the keyspace too; schema print shows the CQL), "+
			"or check --keyspace and --table", err, o.Keyspace)
	}
	return err
}

// missing reports whether a server message says something does not exist,
// in either of Cassandra's wordings ("does not exist" for a read of a
// missing keyspace, "doesn't exist" for a CREATE TABLE in one).
func missing(msg string) bool {
	return strings.Contains(msg, "does not exist") || strings.Contains(msg, "doesn't exist")
}

// missingKeyspace reports whether err says the keyspace does not exist.
func missingKeyspace(err error) bool {
	msg := err.Error()
	return errors.Is(err, gocql.ErrKeyspaceDoesNotExist) || missing(msg) && strings.Contains(strings.ToLower(msg), "keyspace ")
}

// hinted is an error that carries its own advice (withHint adds none).
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() + "; " + h.hint }
func (h *hinted) Unwrap() error { return h.err }
