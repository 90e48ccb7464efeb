package cqlstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/lockstep-go/lockstep"
)

func TestErrors_WriteClassifiesByCtxDriverThenCode(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		maybe bool
	}{
		{"ctx deadline in flight", context.DeadlineExceeded, true},
		{"ctx cancelled in flight", fmt.Errorf("driver: %w", context.Canceled), true},
		{"ctx beats a not-sent verdict", errors.Join(context.Canceled, errRefused), true},
		{"driver says no answer", errNoAnswer, true},
		{"driver says refused", errRefused, false},
		{"driver verdict beats the code", errors.Join(errRefused, codeFrame(CodeWriteTimeout)), false},
		{"write timeout code", codeFrame(CodeWriteTimeout), true},
		{"write failure code", codeFrame(CodeWriteFailure), true},
		{"cas write unknown code", codeFrame(CodeCASWriteUnknown), true},
		{"server error code", codeFrame(CodeServer), true},
		{"a code newer than the list", codeFrame(0x2600), true},
		{"unavailable code", codeFrame(CodeUnavailable), false},
		{"overloaded code", codeFrame(CodeOverloaded), false},
		{"bootstrapping code", codeFrame(CodeBootstrapping), false},
		{"invalid code", codeFrame(CodeInvalid), false},
		{"unauthorized code", codeFrame(CodeUnauthorized), false},
		{"unknown error", io.ErrUnexpectedEOF, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := testErrors.Write("put", "queue_lock", c.err)
			assert.Equal(t, c.maybe, errors.Is(err, lockstep.ErrUnknownOutcome), "%v", err)
			assert.ErrorIs(t, err, c.err)
			assert.Contains(t, err.Error(), "cqltest: put queue_lock: ")
		})
	}
}

func TestErrors_WithoutClassifierFallsBackToCodes(t *testing.T) {
	e := Errors{Name: "x"}
	assert.False(t, e.MaybeApplied(codeFrame(CodeUnavailable)))
	assert.True(t, e.MaybeApplied(errRefused), "an error nobody knows is maybe applied")
}

func TestErrors_ReadIsNeverAnUnknownOutcome(t *testing.T) {
	for _, e := range []error{codeFrame(CodeReadTimeout), errNoAnswer, context.DeadlineExceeded} {
		err := testErrors.Read("queue_lock", e)
		assert.NotErrorIs(t, err, lockstep.ErrUnknownOutcome)
		assert.ErrorIs(t, err, e)
	}
	assert.NoError(t, testErrors.Write("put", "t", nil))
	assert.NoError(t, testErrors.Read("t", nil))
}

type typedErr struct{ n int }

func (e *typedErr) Error() string { return fmt.Sprint("typed ", e.n) }

func TestClassify_MatchesTypesAndSentinelsMaybeFirst(t *testing.T) {
	sentinel := errors.New("sentinel")
	c := Classify([]Match{As[*typedErr]()}, []Match{Is(sentinel), Is(io.EOF)})
	assert.Equal(t, MaybeApplied, c(fmt.Errorf("w: %w", &typedErr{1})))
	assert.Equal(t, NotApplied, c(fmt.Errorf("w: %w", sentinel)))
	assert.Equal(t, MaybeApplied, c(errors.Join(sentinel, &typedErr{2})), "maybe applied wins")
	assert.Equal(t, Undecided, c(io.ErrUnexpectedEOF))
}

// A server's refusal that no retry can change wraps lockstep.ErrRefused, on
// writes and reads alike; a passing refusal (overloaded, unavailable) and a
// timeout do not.
func TestErrors_PermanentRefusalsWrapErrRefused(t *testing.T) {
	e := Errors{Name: "cassandra", Hint: PermissionHint}
	for code, want := range map[int]bool{CodeUnauthorized: true, CodeInvalid: true, CodeSyntax: true, CodeConfig: true,
		CodeOverloaded: false, CodeUnavailable: false, CodeBootstrapping: false, CodeWriteTimeout: false, CodeReadTimeout: false} {
		err := codeFrame(code)
		assert.Equal(t, want, errors.Is(e.Read("queue_lock", err), lockstep.ErrRefused), "read, code %#x", code)
		assert.Equal(t, want, errors.Is(e.Write("put", "queue_lock", err), lockstep.ErrRefused), "write, code %#x", code)
	}
	err := e.Write("put", "queue_lock", codeFrame(CodeUnauthorized))
	assert.ErrorIs(t, err, codeFrame(CodeUnauthorized), "the driver's error is still in the chain")
	assert.Contains(t, err.Error(), "grant that permission")
	assert.False(t, errors.Is(e.Read("t", io.ErrUnexpectedEOF), lockstep.ErrRefused))
}
