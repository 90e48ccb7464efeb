package migration

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"

	"github.com/lockstep-go/lockstep/migration/census"
)

func TestCensus_HeartbeatIsVisibleWithTheProcessState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		l := newProcess(t, s, "web-1", flagOf(lockstep.ModeLegacy))
		h, err := l.Lock(ctx, "invoice/1")
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(testCensusTTL / 30) // updates on a change come at most this often
		synctest.Wait()
		es, err := census.Read(ctx, s, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 1 {
			t.Fatalf("census = %v, want one entry", es)
		}
		e := es[0]
		if e.Process != "web-1" || e.Host != "testhost" || e.Version != "v-test" || e.Configured != lockstep.ModeLegacy ||
			e.Held[lockstep.ModeLegacy] != 1 || e.Err != nil || e.TTL <= 0 || e.TTL > testCensusTTL {
			t.Fatalf("entry = %+v", e)
		}
		if !e.Time.Equal(time.Now()) && time.Since(e.Time) > testCensusTTL/3 {
			t.Fatalf("entry time %v is older than a heartbeat period", e.Time)
		}
		t.Logf("census: %v", e)
		_ = h.Unlock(ctx)
		time.Sleep(testCensusTTL / 30) // the held modes changed: updated promptly
		synctest.Wait()
		es, _ = census.Read(ctx, s, "")
		if es[0].Held[lockstep.ModeLegacy] != 0 {
			t.Fatalf("after Unlock the entry still holds a lock: %v", es[0])
		}
	})
}

func TestCensus_EntryStaysWhileAliveAndExpiresAfterTTLWhenTheProcessStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := &cutStore{Store: newStore(), table: census.DefaultTable}
		newProcess(t, s, "web-1", flagOf(lockstep.ModeCombined))
		time.Sleep(5 * testCensusTTL) // heartbeats keep it alive
		if es, _ := census.Read(ctx, s, ""); len(es) != 1 {
			t.Fatalf("live process: census = %v", es)
		}
		s.cut.Store(true) // the process "stops": nothing of it reaches the store
		es, _ := census.Read(ctx, s, "")
		last := es[0].Time // when the last entry that got through was sent
		time.Sleep(time.Until(last.Add(testCensusTTL - time.Second)))
		if es, _ := census.Read(ctx, s, ""); len(es) != 1 {
			t.Fatalf("within the TTL: census = %v", es)
		}
		time.Sleep(time.Until(last.Add(testCensusTTL + time.Second)))
		if es, _ := census.Read(ctx, s, ""); len(es) != 0 {
			t.Fatalf("after the TTL: census = %v, want empty", es)
		}
	})
}

func TestCensus_CloseRemovesTheEntry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		l := newProcess(t, s, "web-1", flagOf(lockstep.ModeCombined))
		synctest.Wait()
		if es, _ := census.Read(ctx, s, ""); len(es) != 1 {
			t.Fatalf("census = %v", es)
		}
		if err := l.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if es, _ := census.Read(ctx, s, ""); len(es) != 0 {
			t.Fatalf("after Close: census = %v", es)
		}
	})
}

func TestReadCensus_UndecodableEntryIsReturnedWithErrAndBlocksEveryMove(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		if err := s.Put(ctx, census.DefaultTable, census.Row, lockstep.Cell{Column: "odd", Value: []byte(`{"configured":"shadow"}`), Timestamp: 1}); err != nil {
			t.Fatal(err)
		}
		es, err := census.Read(ctx, s, "")
		if err != nil || len(es) != 1 || es[0].Err == nil || !errors.Is(es[0].Err, lockstep.ErrInvalidMode) {
			t.Fatalf("census = %v, %v", es, err)
		}
		for _, m := range []lockstep.Mode{lockstep.ModeLegacy, lockstep.ModeCombined, lockstep.ModeNew} {
			if len(Blocking(es, m)) != 1 {
				t.Fatalf("an unreadable entry does not block a move to %v", m)
			}
		}
		if _, err := census.Read(ctx, s, "Census; DROP"); !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Fatalf("bad table name: %v", err)
		}
	})
}
