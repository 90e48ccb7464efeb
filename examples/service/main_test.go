package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The embedded walk-through moves three replicas legacy -> combined -> new
// with an exact counter and no overlap, and each phase's locks show up.
func TestEmbedded_WalksThePhases(t *testing.T) {
	var out bytes.Buffer
	c := config{id: "invoice/42", hold: time.Millisecond, wait: 300 * time.Millisecond, phase: 500 * time.Millisecond, process: "svc"}
	require.NoError(t, embedded(context.Background(), c, &out))
	s := out.String()
	for _, want := range []string{"phase legacy", "phase combined", "phase new", "overlaps 0"} {
		require.Contains(t, s, want)
	}
	last := s[strings.LastIndex(s, "svc-1:"):]
	require.NotContains(t, last, "new 0;", "replica 1 took no lock in mode new:\n%s", s)
}
