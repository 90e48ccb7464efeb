package fence_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/fence"
	"github.com/lockstep-go/lockstep/model"
)

// token is a lockstep.Fenced with a fixed token.
type token int64

func (t token) Token() int64 { return int64(t) }

// scripted is a fence.Store answering every commit with one fixed result and
// counting the calls that reached it.
type scripted struct {
	applied bool
	highest int64
	err     error
	calls   int
}

func (s *scripted) CommitIfNewer(context.Context, string, string, int64, []byte) (bool, int64, error) {
	s.calls++
	return s.applied, s.highest, s.err
}

func (s *scripted) Load(context.Context, string, string) (int64, []byte, error) { return 0, nil, nil }

func newRegister(t *testing.T, s fence.Store) *fence.Register {
	t.Helper()
	r, err := fence.NewRegister(s, "")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRegister_StaleCommitIsRefusedNamingBothTokens(t *testing.T) {
	ctx := t.Context()
	r := newRegister(t, model.NewFenceStore())
	if err := r.Commit(ctx, token(7), "invoice/42", []byte("new")); err != nil {
		t.Fatal(err)
	}
	err := r.Commit(ctx, token(5), "invoice/42", []byte("stale"))
	var stale *fence.StaleTokenError
	if !errors.Is(err, lockstep.ErrStaleToken) || !errors.As(err, &stale) {
		t.Fatalf("got %v, want a *StaleTokenError wrapping ErrStaleToken", err)
	}
	if stale.Token != 5 || stale.Current != 7 || stale.Key != "invoice/42" || stale.Table != fence.DefaultTable {
		t.Fatalf("error carries %+v", stale)
	}
	if msg := err.Error(); !strings.Contains(msg, "token 5") || !strings.Contains(msg, "token 7") {
		t.Fatalf("message %q does not name both tokens", msg)
	}
	v, err := r.Load(ctx, "invoice/42")
	if err != nil || v.Token != 7 || string(v.Value) != "new" {
		t.Fatalf("Load = %+v, %v; want token 7 value new", v, err)
	}
}

func TestRegister_SameTokenWritesAgain(t *testing.T) {
	ctx := t.Context()
	r := newRegister(t, model.NewFenceStore())
	for _, v := range []string{"one", "two"} {
		if err := r.Commit(ctx, token(7), "k", []byte(v)); err != nil {
			t.Fatalf("commit %q: %v", v, err)
		}
	}
	if v, _ := r.Load(ctx, "k"); string(v.Value) != "two" {
		t.Fatalf("value %q, want two", v.Value)
	}
}

func TestRegister_UnknownOutcomeIsReportedNeverApplied(t *testing.T) {
	timeout := fmt.Errorf("write timeout: %w", lockstep.ErrUnknownOutcome)
	for _, s := range []*scripted{
		{err: timeout},
		{applied: true, highest: 9, err: timeout}, // a store must not be believed on error
	} {
		err := newRegister(t, s).Commit(t.Context(), token(9), "k", []byte("v"))
		if !errors.Is(err, lockstep.ErrUnknownOutcome) || errors.Is(err, lockstep.ErrStaleToken) {
			t.Fatalf("got %v, want an error wrapping ErrUnknownOutcome only", err)
		}
		if !strings.Contains(err.Error(), "may have been written") {
			t.Fatalf("message %q does not say the value may have been written", err)
		}
	}
}

func TestRegister_PlainStoreFailureSaysNothingWasWritten(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	s := &scripted{err: ctx.Err()}
	err := newRegister(t, s).Commit(ctx, token(9), "k", nil)
	if !errors.Is(err, context.Canceled) || errors.Is(err, lockstep.ErrUnknownOutcome) || !strings.Contains(err.Error(), "nothing written") {
		t.Fatalf("got %v, want context.Canceled, nothing written", err)
	}
}

func TestRegister_BadInputIsRefusedBeforeTheStore(t *testing.T) {
	s := &scripted{applied: true}
	r := newRegister(t, s)
	ctx := t.Context()
	for name, err := range map[string]error{
		"token 0 (a Locker without fencing)": r.Commit(ctx, token(0), "k", nil),
		"negative token":                     r.CommitToken(ctx, -1, "k", nil),
		"nil lock":                           r.Commit(ctx, nil, "k", nil),
		"empty key":                          r.Commit(ctx, token(3), "", nil),
		"key not UTF-8":                      r.Commit(ctx, token(3), "\xff", nil),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := r.Load(ctx, ""); err == nil {
		t.Error("Load of an empty key: no error")
	}
	if s.calls != 0 {
		t.Fatalf("%d calls reached the store", s.calls)
	}
}

func TestRegister_StoreRefusingWithoutAHigherTokenIsNotStale(t *testing.T) {
	err := newRegister(t, &scripted{highest: 9}).Commit(t.Context(), token(9), "k", nil)
	if err == nil || errors.Is(err, lockstep.ErrStaleToken) {
		t.Fatalf("got %v, want a broken-store error", err)
	}
}

func TestNewRegister_RefusesNilStoreAndUnsafeTable(t *testing.T) {
	if _, err := fence.NewRegister(nil, ""); !errors.Is(err, lockstep.ErrInvalidConfig) {
		t.Errorf("nil store: %v", err)
	}
	if _, err := fence.NewRegister(model.NewFenceStore(), "x; DROP TABLE y"); !errors.Is(err, lockstep.ErrInvalidConfig) {
		t.Errorf("unsafe table: %v", err)
	}
	r, err := fence.NewRegister(model.NewFenceStore(), "")
	if err != nil || r.Table() != fence.DefaultTable {
		t.Errorf("default table: %v, %v", r, err)
	}
}
