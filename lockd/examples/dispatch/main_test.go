package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The command as docs/lockd.md runs it, smaller: every message processed, no
// conflicting pair at once, delivery order kept, and some parallelism.
func TestDispatch_ThroughAnEmbeddedLockd(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"-instances", "3", "-workers", "3", "-messages", "25", "-process", "2ms"}, &out))
	got := out.String()
	require.Contains(t, got, "processed 75 messages")
	require.Contains(t, got, "conflicting messages processed at once: 0\n")
	require.Contains(t, got, "conflicting messages of one instance out of delivery order: 0\n")
	require.NotContains(t, got, "most messages in process at once: 1\n", "no two messages ever ran at once:\n%s", got)
}

// The checks have teeth: spans that break exclusion or order are counted,
// and the report fails.
func TestRecorder_CountsOverlapsAndOrder(t *testing.T) {
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	r := &recorder{}
	usd := message{seq: 0, kind: "rate", keys: []string{"bank/usd"}}
	acc := message{seq: 1, kind: "deposit", keys: []string{"bank/usd/acc1"}}
	eur := message{seq: 2, kind: "deposit", keys: []string{"bank/eur/acc1"}}
	r.add(span{instance: 0, msg: usd, start: at(0), end: at(10)})
	r.add(span{instance: 0, msg: acc, start: at(5), end: at(15)}) // descendant of usd, at once: overlap and out of order
	r.add(span{instance: 0, msg: eur, start: at(0), end: at(20)}) // unrelated: neither
	v := r.judge()
	require.Equal(t, 1, v.overlaps)
	require.Equal(t, 1, v.outOfOrder)
	require.Equal(t, 3, v.mostAtOnce)
	var out bytes.Buffer
	err := r.report(&out, &config{instances: 1, workers: 3, messages: 3})
	require.ErrorContains(t, err, "1 overlaps, 1 out of order")
}

func TestRelated(t *testing.T) {
	require.True(t, related("bank", "bank/usd/acc1"))
	require.True(t, related("bank/usd/acc1", "bank/usd"))
	require.True(t, related("bank/usd", "bank/usd"))
	require.False(t, related("bank/usd", "bank/usdx"))
	require.False(t, related("bank/usd/acc1", "bank/usd/acc2"))
}

// Bad flags are refused before anything starts.
func TestParse_Refusals(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"-instances 0", "must be at least 1"},
		{"-workers 0", "must be at least 1"},
		{"-process 0s", "-process must be positive"},
		{"-prefix a/b", "-prefix must be one non-empty segment"},
		{"-token t", "-token needs -addr"},
		{"extra", "unexpected arguments"},
	} {
		_, err := parse(strings.Fields(c.args))
		require.ErrorContains(t, err, c.want, c.args)
	}
}
