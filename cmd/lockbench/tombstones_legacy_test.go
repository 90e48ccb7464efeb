package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Every legacy acquisition leaves one tombstone in each row, and the
// legacy reads read whole rows: a read steps over one tombstone per
// acquisition of the last gc_grace, and over every one before any is purged.
func TestRunSimLegacyTombstones_ReadsStepOverTheAcquisitionsOfTheLastGCGrace(t *testing.T) {
	cfg := tombstoneConfig{n: 2000, period: 100 * time.Millisecond, window: 100}
	long, err := runSimLegacyTombstones(context.Background(), cfg, time.Hour)
	require.NoError(t, err)
	require.NotEmpty(t, long)
	last := long[len(long)-1]
	require.Equal(t, 2000, last.done)
	require.Equal(t, int64(1999), last.max, "nothing purged within the hour: the last reads step over every earlier acquisition")

	short, err := runSimLegacyTombstones(context.Background(), cfg, 20*time.Second)
	require.NoError(t, err)
	last = short[len(short)-1]
	// 10 acquisitions/s × 20 s, plus what the model's once-a-second purge
	// leaves for up to a second more.
	require.InDelta(t, 200, last.max, 12, "reads step over about rate × gc_grace tombstones")
	require.Positive(t, last.purged)
	// At the old 3 h grace, reads abort from a sustained 9.26 acquisitions/s.
	require.InDelta(t, 9.26, thresholdRate(tombstoneFailureThreshold, 3*time.Hour), 0.01)
}
