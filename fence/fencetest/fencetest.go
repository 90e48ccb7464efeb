package fencetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/fence"
)

// Harness is what the suite needs to exercise one Store.
type Harness struct {
	// Store is the store under test.
	Store fence.Store
	// Table is a table of fenced values, already created. It may hold other
	// keys; every case uses keys of its own.
	Table string
}

// Run runs every conformance case as a parallel subtest of t, calling
// newHarness once per case from that case's goroutine.
func Run(t *testing.T, newHarness func(t *testing.T) Harness) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			if h.Store == nil || h.Table == "" {
				t.Fatal("fencetest: harness with a nil Store or an empty Table")
			}
			c.run(t, &env{h: h, ctx: t.Context(), prefix: keyPrefix(t)})
		})
	}
}

type testCase struct {
	name string
	run  func(t *testing.T, e *env)
}

// env is one case's view of the store.
type env struct {
	h      Harness
	ctx    context.Context
	prefix string
}

func keyPrefix(t *testing.T) string {
	name := strings.NewReplacer("/", ".", " ", "_").Replace(t.Name())
	return fmt.Sprintf("fencetest/%s/%016x/", name, rand.Uint64())
}

// key names one of the case's keys.
func (e *env) key(name string) string { return e.prefix + name }

// commit calls CommitIfNewer, failing the test on error.
func (e *env) commit(t *testing.T, key string, token int64, value string) (bool, int64) {
	t.Helper()
	applied, highest, err := e.h.Store.CommitIfNewer(e.ctx, e.h.Table, key, token, []byte(value))
	if err != nil {
		t.Fatalf("CommitIfNewer(%q, %d): %v", key, token, err)
	}
	return applied, highest
}

// wantApplied fails unless a commit of token applies.
func (e *env) wantApplied(t *testing.T, key string, token int64, value string) {
	t.Helper()
	if applied, highest := e.commit(t, key, token, value); !applied || highest != token {
		t.Fatalf("commit of token %d to %q: applied %v, highest %d; want applied, highest %d", token, key, applied, highest, token)
	}
}

// wantRefused fails unless a commit of token is refused in favour of current.
func (e *env) wantRefused(t *testing.T, key string, token int64, value string, current int64) {
	t.Helper()
	if applied, highest := e.commit(t, key, token, value); applied || highest != current {
		t.Fatalf("commit of token %d to %q: applied %v, highest %d; want refused, highest %d", token, key, applied, highest, current)
	}
}

// wantVersion fails unless key holds value with token.
func (e *env) wantVersion(t *testing.T, key string, token int64, value string) {
	t.Helper()
	gotToken, gotValue, err := e.h.Store.Load(e.ctx, e.h.Table, key)
	if err != nil {
		t.Fatalf("Load(%q): %v", key, err)
	}
	if gotToken != token || !bytes.Equal(gotValue, []byte(value)) {
		t.Fatalf("key %q holds token %d value %q; want token %d value %q", key, gotToken, gotValue, token, value)
	}
}

var cases = []testCase{
	{"FirstCommitToAFreshKeyApplies", func(t *testing.T, e *env) {
		k := e.key("k")
		e.wantVersion(t, k, 0, "")
		e.wantApplied(t, k, 5, "a")
		e.wantVersion(t, k, 5, "a")
	}},
	{"HigherTokenApplies", func(t *testing.T, e *env) {
		k := e.key("k")
		e.wantApplied(t, k, 5, "a")
		e.wantApplied(t, k, 9, "b")
		e.wantVersion(t, k, 9, "b")
	}},
	{"EqualTokenAppliesAsTheSameHolderWritingAgain", func(t *testing.T, e *env) {
		k := e.key("k")
		e.wantApplied(t, k, 5, "a")
		e.wantApplied(t, k, 5, "b")
		e.wantVersion(t, k, 5, "b")
	}},
	{"LowerTokenIsRefusedWithTheStoredTokenAndWritesNothing", func(t *testing.T, e *env) {
		k := e.key("k")
		e.wantApplied(t, k, 9, "new")
		e.wantRefused(t, k, 5, "stale", 9)
		e.wantRefused(t, k, 8, "stale", 9)
		e.wantVersion(t, k, 9, "new")
	}},
	{"KeysAreFencedIndependently", func(t *testing.T, e *env) {
		a, b := e.key("a"), e.key("b")
		e.wantApplied(t, a, 9, "a9")
		e.wantApplied(t, b, 5, "b5")
		e.wantRefused(t, a, 5, "a5", 9)
		e.wantVersion(t, a, 9, "a9")
		e.wantVersion(t, b, 5, "b5")
	}},
	{"EmptyValueRoundTrips", func(t *testing.T, e *env) {
		k := e.key("k")
		e.wantApplied(t, k, 5, "a")
		if applied, _, err := e.h.Store.CommitIfNewer(e.ctx, e.h.Table, k, 6, nil); err != nil || !applied {
			t.Fatalf("commit of a nil value: applied %v, %v", applied, err)
		}
		e.wantVersion(t, k, 6, "")
	}},
	{"LargeTokensCompareAsNumbers", func(t *testing.T, e *env) {
		// Tokens are microsecond times: far above 2^32, and 10 > 9 must hold
		// however they are stored.
		k := e.key("k")
		e.wantApplied(t, k, 1_767_225_600_000_010, "a")
		e.wantRefused(t, k, 1_767_225_600_000_009, "b", 1_767_225_600_000_010)
		e.wantApplied(t, k, 1<<62, "c")
		e.wantVersion(t, k, 1<<62, "c")
	}},
	{"BadInputIsRefusedAndChangesNothing", func(t *testing.T, e *env) {
		k := e.key("k")
		e.wantApplied(t, k, 5, "a")
		for _, c := range []struct {
			table, key string
			token      int64
		}{
			{e.h.Table, k, 0},
			{e.h.Table, k, -7},
			{e.h.Table, "", 9},
			{e.h.Table, "\xff", 9},
			{"Bad; DROP TABLE x", k, 9},
			{"", k, 9},
		} {
			applied, _, err := e.h.Store.CommitIfNewer(e.ctx, c.table, c.key, c.token, []byte("bad"))
			if err == nil || applied {
				t.Errorf("CommitIfNewer(%q, %q, %d): applied %v, err %v; want an error", c.table, c.key, c.token, applied, err)
			}
			if errors.Is(err, lockstep.ErrUnknownOutcome) {
				t.Errorf("CommitIfNewer(%q, %q, %d): %v; bad input must not be an unknown outcome", c.table, c.key, c.token, err)
			}
		}
		e.wantVersion(t, k, 5, "a")
		if _, _, err := e.h.Store.Load(e.ctx, e.h.Table, ""); err == nil {
			t.Error("Load of an empty key: no error")
		}
	}},
	{"CancelledContextWritesNothing", func(t *testing.T, e *env) {
		k := e.key("k")
		e.wantApplied(t, k, 5, "a")
		ctx, cancel := context.WithCancel(e.ctx)
		cancel()
		if applied, _, err := e.h.Store.CommitIfNewer(ctx, e.h.Table, k, 9, []byte("late")); !errors.Is(err, context.Canceled) || applied {
			t.Fatalf("commit with a cancelled ctx: applied %v, err %v; want context.Canceled", applied, err)
		}
		e.wantVersion(t, k, 5, "a")
	}},
	{"ConcurrentCommitsLeaveTheHighestToken", concurrentCommits},
}

// concurrentCommits races commits of distinct tokens on one key. Every
// refusal must name a token above the refused one, and the key must end with
// the highest token whose commit was applied (an unknown outcome, possible
// under contention on a real cluster, may or may not count).
func concurrentCommits(t *testing.T, e *env) {
	k := e.key("k")
	const n = 8
	type result struct {
		applied, unknown bool
		highest          int64
	}
	results := make([]result, n+1) // index = token
	var wg sync.WaitGroup
	for token := int64(1); token <= n; token++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			applied, highest, err := e.h.Store.CommitIfNewer(e.ctx, e.h.Table, k, token, []byte(fmt.Sprint("v", token)))
			switch {
			case errors.Is(err, lockstep.ErrUnknownOutcome):
				results[token] = result{unknown: true}
			case err != nil:
				t.Errorf("token %d: %v", token, err)
			default:
				results[token] = result{applied: applied, highest: highest}
			}
		}()
	}
	wg.Wait()
	var maxApplied int64
	for token := int64(1); token <= n; token++ {
		r := results[token]
		switch {
		case r.applied:
			maxApplied = token
		case !r.unknown && r.highest <= token:
			t.Errorf("token %d refused in favour of token %d", token, r.highest)
		}
	}
	got, value, err := e.h.Store.Load(e.ctx, e.h.Table, k)
	if err != nil {
		t.Fatal(err)
	}
	if got < maxApplied || got > n || (got > maxApplied && !results[got].unknown) {
		t.Fatalf("key holds token %d; highest applied %d, results %+v", got, maxApplied, results)
	}
	// Token 0: no commit landed (every one ended unknown, as on an
	// overloaded cluster), so the key holds nothing.
	want := fmt.Sprint("v", got)
	if got == 0 {
		want = ""
	}
	if string(value) != want {
		t.Fatalf("key holds token %d with value %q, want %q", got, value, want)
	}
}
