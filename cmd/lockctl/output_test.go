package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// decode parses out as one JSON object into a generic map, so the tests
// check the field names scripts see, not this package's structs.
func decode(t *testing.T, out string) map[string]any {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	require.NoError(t, dec.Decode(&m), out)
	assert.False(t, dec.More(), "more than one JSON value: %s", out)
	return m
}

func TestInspect_JSON(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := model.New(&clock.Local{})
		q, _ := queuelock.New(store, &queuelock.Options{ProcessID: "holder", TTL: 30 * time.Second})
		defer q.Close(context.Background())
		h, err := q.Lock(t.Context(), "invoice/42")
		require.NoError(t, err)
		s, _ := shadowlock.New(store, &shadowlock.Options{ProcessID: "old", TTL: 60 * time.Second})
		defer s.Close(context.Background())
		lh, err := s.Lock(t.Context(), "invoice/42")
		require.NoError(t, err)
		time.Sleep(2500 * time.Millisecond)

		a, out, _ := modelApp(store, "")
		mustRun(t, a, "inspect", "--output", "json", "invoice/42")
		m := decode(t, out.String())
		assert.Equal(t, "invoice/42", m["lock"])
		assert.Equal(t, "locks", m["keyspace"])
		assert.Equal(t, "QUORUM", m["consistency"])
		readAt, err := time.Parse(time.RFC3339Nano, m["read_at"].(string))
		require.NoError(t, err)
		assert.WithinDuration(t, time.Now(), readAt, time.Millisecond)

		queue := m["queue"].(map[string]any)
		assert.Equal(t, "queue_lock", queue["table"])
		assert.Equal(t, "held", queue["state"])
		assert.Equal(t, h.Owner(), queue["holder"])
		assert.Equal(t, false, queue["full_read"])
		assert.Equal(t, []any{}, queue["foreign"])
		owners := queue["owners"].([]any)
		require.Len(t, owners, 1)
		owner := owners[0].(map[string]any)
		assert.Equal(t, h.Owner(), owner["owner"])
		assert.InDelta(t, 28, owner["ttl_seconds"], 1) // 30 s written up to 2.5 s ago, whole seconds
		written, err := time.Parse(time.RFC3339Nano, owner["written"].(string))
		require.NoError(t, err)
		assert.WithinDuration(t, time.Now().Add(-2500*time.Millisecond), written, 2500*time.Millisecond)
		for _, k := range []string{"enqueued", "written"} {
			assert.Contains(t, owner, k)
		}
		assert.Len(t, queue["queue"], 1)

		legacy := m["legacy"].(map[string]any)
		assert.Equal(t, "legacy_main", legacy["main_table"])
		assert.Equal(t, "legacy_shadow", legacy["shadow_table"])
		assert.Equal(t, "held", legacy["state"])
		assert.Equal(t, lh.Owner(), legacy["holder"])
		require.Len(t, legacy["main"], 1)
		assert.Equal(t, lh.Owner(), legacy["main"].([]any)[0].(map[string]any)["owner"])
		assert.Equal(t, []any{}, legacy["shadow"])

		// A lock nobody holds: states free, no holder field, empty lists.
		a, out, _ = modelApp(store, "")
		mustRun(t, a, "--output=json", "inspect", "other")
		m = decode(t, out.String())
		assert.Equal(t, "free", m["queue"].(map[string]any)["state"])
		assert.NotContains(t, m["queue"], "holder")
		assert.Equal(t, []any{}, m["queue"].(map[string]any)["owners"])
		assert.Nil(t, m["queue"].(map[string]any)["floor"])
		assert.Equal(t, "free", m["legacy"].(map[string]any)["state"])
	})
}

func TestFleetAndPhaseGet_JSON(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := model.New(&clock.Local{})
		proc, err := migration.New(store, migration.Static(lockstep.ModeLegacy), &migration.Options{ProcessID: "web-1", Host: "h1", Version: "v7"})
		require.NoError(t, err)
		defer proc.Close(context.Background())
		l, err := proc.Lock(t.Context(), "res")
		require.NoError(t, err)
		defer l.Unlock(context.Background())
		time.Sleep(3 * time.Second) // a heartbeat after the lock

		a, out, _ := modelApp(store, "")
		mustRun(t, a, "phase", "set", "combined")
		assert.Contains(t, out.String(), "phase: legacy -> combined")

		a, out, _ = modelApp(store, "")
		mustRun(t, a, "fleet", "--output", "json")
		m := decode(t, out.String())
		assert.Equal(t, "locks", m["keyspace"])
		assert.Equal(t, "fleet_census", m["table"])
		assert.Equal(t, map[string]any{"phase": "combined", "mode": "combined", "target": "", "pending": false,
			"allows": []any{"legacy", "combined"}}, m["phase"])
		procs := m["processes"].([]any)
		require.Len(t, procs, 1)
		p := procs[0].(map[string]any)
		assert.Equal(t, "web-1", p["process"])
		assert.Equal(t, "h1", p["host"])
		assert.Equal(t, "v7", p["version"])
		assert.Equal(t, "legacy", p["configured"])
		assert.Equal(t, map[string]any{"legacy": float64(1)}, p["held"])
		assert.Equal(t, map[string]any{}, p["acquiring"])
		assert.Contains(t, p, "sent")
		assert.Greater(t, p["ttl_seconds"], float64(0))
		assert.NotContains(t, p, "error")
		moves := m["moves"].([]any)
		require.Len(t, moves, 2)
		byTarget := map[string]map[string]any{}
		for _, mv := range moves {
			byTarget[mv.(map[string]any)["to"].(string)] = mv.(map[string]any)
		}
		assert.Equal(t, false, byTarget["legacy"]["blocked"])
		assert.Equal(t, []any{}, byTarget["legacy"]["blockers"])
		assert.Equal(t, true, byTarget["new"]["blocked"])
		assert.Equal(t, []any{"web-1"}, byTarget["new"]["blockers"])
		assert.Contains(t, byTarget["new"]["reason"], "web-1 on h1")

		a, out, _ = modelApp(store, "")
		a.getenv = func(k string) string { return map[string]string{"LOCKSTEP_OUTPUT": "json"}[k] }
		mustRun(t, a, "phase", "get")
		assert.Equal(t, map[string]any{"phase": "combined", "mode": "combined", "target": "", "pending": false,
			"allows": []any{"legacy", "combined"}}, decode(t, out.String()))
	})
}

// phase set --drain reports on stderr every progressEvery what it waits
// for, and a move the census still forbids when the drain ends is refused
// with exit 4.
func TestPhaseSet_DrainReportsProgressThenRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := model.New(&clock.Local{})
		proc, err := migration.New(store, migration.Static(lockstep.ModeLegacy), &migration.Options{ProcessID: "web-1", Host: "h1"})
		require.NoError(t, err)
		defer proc.Close(context.Background())
		synctest.Wait()
		a, _, _ := modelApp(store, "")
		mustRun(t, a, "phase", "set", "combined")

		a, out, errOut := modelApp(store, "")
		start := time.Now()
		code := a.run(t.Context(), []string{"phase", "set", "--drain", "12s", "new"})
		assert.Equal(t, exitRefused, code)
		assert.GreaterOrEqual(t, time.Since(start), 12*time.Second, "it did not wait out the drain")
		assert.Empty(t, out.String())
		lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
		require.Len(t, lines, 3, errOut.String()) // at 5 s, at 10 s, then the refusal
		for i, want := range []string{"5s of 12s", "10s of 12s"} {
			assert.Equal(t, "lockctl: phase set combined -> new: draining, "+want+
				": waiting for 1 process(es) to stop using a mode phase new forbids: web-1 on h1 (uses legacy)", lines[i])
		}
		assert.Contains(t, lines[2], "lockctl: migration: phase move combined -> new refused")
		assert.Contains(t, lines[2], "web-1 on h1 (configured legacy)")

		// Without blockers it moves at once and reports nothing.
		require.NoError(t, proc.Close(context.Background()))
		a, out, errOut = modelApp(store, "")
		mustRun(t, a, "phase", "set", "--drain", "12s", "new")
		assert.Contains(t, out.String(), "phase: combined -> new")
		assert.Empty(t, errOut.String())
	})
}

// A holder past its first renewal has no queue cell (docs/algorithms.md,
// section 4.13): when it enqueued is unknown, and inspect says so ("-", and
// null in JSON) instead of passing its last write off as its enqueue time.
func TestInspect_HolderWithoutItsQueueCellHasNoEnqueueTime(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	lc := &lockCells{id: "c", queueName: "queue_lock", mainName: "legacy_main", shadowName: "legacy_shadow",
		owners: []queueCell{{Cell: lockstep.Cell{Timestamp: now.Add(-time.Second).UnixMicro(), TTL: 29 * time.Second},
			owner: true, id: "a.1", access: lockstep.Exclusive}}}
	var b bytes.Buffer
	lc.write(&b, now)
	assert.Regexp(t, `owner\s+a\.1\s+X\s+-\s+-\s+1s ago`, b.String())
	r := lc.report(&options{}, now)
	require.Len(t, r.Queue.Owners, 1)
	assert.Nil(t, r.Queue.Owners[0].Enqueued)
	j, err := json.Marshal(r.Queue.Owners[0])
	require.NoError(t, err)
	assert.Contains(t, string(j), `"enqueued":null`)
}
