package cqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockstep-go/lockstep"
)

// Outcome is what a failed write tells about whether its mutation was
// applied.
type Outcome int

const (
	// Undecided: the driver does not know the error; the protocol's error
	// code, if any, decides, and otherwise the write counts as maybe
	// applied.
	Undecided Outcome = iota
	// NotApplied: the request was refused before its mutation reached any
	// replica, a definite failure.
	NotApplied
	// MaybeApplied: the mutation may have reached replicas, an unknown
	// outcome.
	MaybeApplied
)

// Classifier sorts the errors only the driver can recognise: its typed
// server errors and its sentinel errors (no answer in time, connection
// closed, no hosts, session closed...). It answers Undecided for the rest.
type Classifier func(err error) Outcome

// Match reports whether err is (or wraps) one particular driver error.
type Match func(err error) bool

// Is matches errors that wrap target (a driver's sentinel error).
func Is(target error) Match { return func(err error) bool { return errors.Is(err, target) } }

// As matches errors that wrap an error of type T (a driver's typed error).
func As[T error]() Match {
	return func(err error) bool {
		var t T
		return errors.As(err, &t)
	}
}

// Classify returns the Classifier of a driver from the errors it knows:
// maybe lists those that mean the request was sent and may have been
// applied, notApplied those that mean it was refused before any replica got
// it. An error matching neither is Undecided.
func Classify(maybe, notApplied []Match) Classifier {
	return func(err error) Outcome {
		for _, m := range maybe {
			if m(err) {
				return MaybeApplied
			}
		}
		for _, m := range notApplied {
			if m(err) {
				return NotApplied
			}
		}
		return Undecided
	}
}

// Errors wraps the errors of one store: its name prefixes every message and
// its driver's Classifier sorts write failures.
type Errors struct {
	Name     string // e.g. "cassandra"
	Classify Classifier
	// Hint, when set, returns what the user can do about an error that is
	// not the store's fault (e.g. UnauthorizedHint), or "".
	Hint func(error) string
}

// UnauthorizedHint is the advice appended to a request refused for a missing
// permission; the driver's message names the permission and the table.
const UnauthorizedHint = " (grant that permission on the table to the session's role; the lockstep repository's docs/security.md lists the grants each lockstep role needs)"

// codeUnauthorized is the native protocol's error code for a request refused
// for a missing permission (protocol spec §9, 0x2100), the same in every
// driver.
const codeUnauthorized = 0x2100

// PermissionHint is an Errors.Hint for any driver whose server errors carry
// the protocol's error code (both gocql lines do: a Code() int method): it
// returns UnauthorizedHint for a missing permission, "" otherwise.
func PermissionHint(err error) string {
	var coded interface{ Code() int }
	if errors.As(err, &coded) && coded.Code() == codeUnauthorized {
		return UnauthorizedHint
	}
	return ""
}

// hint is e.Hint(err), or "" without one.
func (e Errors) hint(err error) string {
	if e.Hint == nil {
		return ""
	}
	return e.Hint(err)
}

// Write classifies the error of a write or delete. If the mutation may have
// reached replicas, the result wraps lockstep.ErrUnknownOutcome as well as
// err; otherwise it wraps err alone. A *RemoteCoordinatorError wraps both
// lockstep.ErrUnknownOutcome and lockstep.ErrRefused. Either way errors.Is and errors.As still
// find the driver's error and a ctx error.
func (e Errors) Write(op, table string, err error) error {
	if err == nil {
		return nil
	}
	var remote *RemoteCoordinatorError
	if errors.As(err, &remote) {
		return fmt.Errorf("%s: %s %s: %w: %w: %w", e.Name, op, table, lockstep.ErrUnknownOutcome, lockstep.ErrRefused, err)
	}
	if e.MaybeApplied(err) {
		return fmt.Errorf("%s: %s %s: %w: %w", e.Name, op, table, lockstep.ErrUnknownOutcome, err)
	}
	if Permanent(err) {
		return fmt.Errorf("%s: %s %s: %w: %w%s", e.Name, op, table, lockstep.ErrRefused, err, e.hint(err))
	}
	return fmt.Errorf("%s: %s %s: %w%s", e.Name, op, table, err, e.hint(err))
}

// Read wraps the error of a read. A failed read changes nothing, so it is
// always a plain failure; a permanent refusal and a *RemoteCoordinatorError
// also wrap lockstep.ErrRefused.
func (e Errors) Read(table string, err error) error {
	if err == nil {
		return nil
	}
	var remote *RemoteCoordinatorError
	if Permanent(err) || errors.As(err, &remote) {
		return fmt.Errorf("%s: read %s: %w: %w%s", e.Name, table, lockstep.ErrRefused, err, e.hint(err))
	}
	return fmt.Errorf("%s: read %s: %w%s", e.Name, table, err, e.hint(err))
}

// Permanent reports whether err is a server's refusal that no retry can
// change: a missing permission (Unauthorized), a missing keyspace or table
// or another invalid request (Invalid), a syntax or configuration error.
// Such a request was refused before any replica got it. Overloaded,
// unavailable and bootstrapping pass; timeouts may have been applied.
func Permanent(err error) bool {
	var frame interface{ Code() int }
	if !errors.As(err, &frame) {
		return false
	}
	switch frame.Code() {
	case CodeUnauthorized, CodeInvalid, CodeSyntax, CodeConfig:
		return true
	}
	return false
}

// MaybeApplied reports whether a write that failed with err may nevertheless
// have been applied by some replica. It answers false only for errors raised
// before the mutation is sent to any replica; every other error, including
// ones it does not know, counts as maybe applied, because calling a write
// that was applied "failed" could leave a cell behind that the algorithm
// does not know it wrote, while the converse only costs a cleanup of a cell
// that is not there.
//
// The order: the caller's ctx ending while the request was in flight means
// no answer came (maybe applied); then the driver's own types and sentinels;
// then the protocol error code of a server error frame; then maybe applied.
func (e Errors) MaybeApplied(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	if e.Classify != nil {
		switch e.Classify(err) {
		case MaybeApplied:
			return true
		case NotApplied:
			return false
		}
	}
	var frame interface{ Code() int }
	if errors.As(err, &frame) {
		return CodeMaybeApplied(frame.Code())
	}
	return true
}

// Error codes of the native protocol (native_protocol_v5.spec, section 9),
// the same numbers in both drivers.
const (
	CodeServer          = 0x0000
	CodeProtocol        = 0x000A
	CodeCredentials     = 0x0100
	CodeUnavailable     = 0x1000
	CodeOverloaded      = 0x1001
	CodeBootstrapping   = 0x1002
	CodeTruncate        = 0x1003
	CodeWriteTimeout    = 0x1100
	CodeReadTimeout     = 0x1200
	CodeReadFailure     = 0x1300
	CodeFunctionFailure = 0x1400
	CodeWriteFailure    = 0x1500
	CodeCDCWriteFailure = 0x1600
	CodeCASWriteUnknown = 0x1700
	CodeSyntax          = 0x2000
	CodeUnauthorized    = 0x2100
	CodeInvalid         = 0x2200
	CodeConfig          = 0x2300
	CodeAlreadyExists   = 0x2400
	CodeUnprepared      = 0x2500
)

// CodeMaybeApplied reports whether a write answered with a server error of
// this code may have been applied. The coordinator refuses unavailable,
// overloaded, bootstrapping and every request error (syntax, invalid,
// unauthorized, config, credentials, protocol, unprepared, already exists)
// before it forwards the mutation. A write timeout or failure (CAS and CDC
// included) means replicas got it; a server error (code 0) may come half-way
// through; codes newer than this list count as maybe applied.
func CodeMaybeApplied(code int) bool {
	switch code {
	case CodeUnavailable, CodeOverloaded, CodeBootstrapping,
		CodeSyntax, CodeInvalid, CodeUnauthorized, CodeConfig, CodeCredentials,
		CodeProtocol, CodeUnprepared, CodeAlreadyExists:
		return false
	}
	return true
}
