package main

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/schema"
)

// Readers sharing a queue lock are its holders, not a contest: inspect
// names each with its access, and JSON carries the access of every cell.
func TestInspect_SharedHoldersAreHeldNotContested(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store := model.New(&clock.Local{})
		var locks []lockstep.Lock
		for _, p := range []string{"r1", "r2"} {
			q, err := queuelock.New(store, &queuelock.Options{ProcessID: p})
			require.NoError(t, err)
			defer q.Close(ctx)
			lk, err := q.LockGroup(ctx, lockstep.Request{ID: "report", Access: lockstep.Shared})
			require.NoError(t, err)
			locks = append(locks, lk)
		}
		time.Sleep(time.Millisecond)
		lc, err := readLock(ctx, store, schema.DefaultTables(), "report", false)
		require.NoError(t, err)
		require.Equal(t, "held by "+locks[0].Owner()+" (S), "+locks[1].Owner()+" (S), 2 in line", lc.queueStatus())

		a, out, _ := modelApp(store, "")
		mustRun(t, a, "--output", "json", "inspect", "report")
		var got struct {
			Queue struct {
				State  string `json:"state"`
				Owners []struct {
					Access string `json:"access"`
				} `json:"owners"`
			} `json:"queue"`
		}
		require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
		require.Equal(t, "held", got.Queue.State)
		require.Len(t, got.Queue.Owners, 2)
		require.Equal(t, "S", got.Queue.Owners[0].Access)
	})
}
