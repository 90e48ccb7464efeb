package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/schema"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// These tests run lockctl's commands against the in-memory model (package
// model) instead of Cassandra, inside a synctest bubble so lease renewals and
// census heartbeats run on fake time.

// modelApp returns an app whose connection is store, reading stdin from in.
func modelApp(store lockstep.Store, in string) (*app, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	a := newApp(strings.NewReader(in), &out, &errOut)
	a.getenv = func(string) string { return "" }
	a.connect = func(context.Context, *options) (*conn, error) { return &conn{store: store}, nil }
	return a, &out, &errOut
}

func mustRun(t *testing.T, a *app, args ...string) {
	t.Helper()
	if code := a.run(t.Context(), args); code != exitOK {
		t.Fatalf("%q: exit %d; stderr: %s", args, code, a.stderr)
	}
}

// readLock sorts a lock's cells, written in their documented formats, by kind; a
// cell no Locker writes is listed apart, and inspect points at it.
func TestReadLock_SortsCellsByKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		store := model.New(&clock.Local{})
		now := time.Now().UnixMicro()
		tables := schema.DefaultTables()
		put := func(table string, cells ...lockstep.Cell) {
			t.Helper()
			if err := store.Put(ctx, table, "c", cells...); err != nil {
				t.Fatal(err)
			}
		}
		put(tables.QueueLock,
			docQueueCell(now-2, "a.1", now, time.Minute),
			docQueueCell(now-1, "b.1", now, time.Minute),
			docOwnerCell("a", 7, "a.1", now, time.Minute),
			docFloorCell(now-3, time.Minute),
			lockstep.Cell{Column: "zz", Value: []byte("x"), Timestamp: now, TTL: time.Minute})
		put(tables.LegacyMain, docLegacyCell("a:legacy.1", now, time.Minute))
		put(tables.LegacyShadow, docLegacyCell("b:legacy.1", now, time.Minute))

		lc, err := readLock(ctx, store, tables, "c", false)
		if err != nil {
			t.Fatal(err)
		}
		if len(lc.owners) != 1 || lc.owners[0].id != "a.1" || lc.owners[0].named != now-2 ||
			len(lc.queue) != 2 || lc.queue[0].id != "a.1" || lc.queue[1].id != "b.1" || lc.queue[1].named != now-1 ||
			lc.floor != now-3 || len(lc.foreign) != 1 || lc.foreign[0].Column != "zz" {
			t.Errorf("queue partition read as %+v", lc)
		}
		if got := lc.queueStatus(); got != "held by a.1, 2 in line" {
			t.Errorf("queue status %q", got)
		}
		if got := lc.legacyStatus(); got != "held by a:legacy.1, 1 contender(s) in the shadow row" {
			t.Errorf("legacy status %q", got)
		}
		a, out, _ := modelApp(store, "")
		mustRun(t, a, "inspect", "c")
		if !strings.Contains(out.String(), `FOREIGN cell "zz"`) || !strings.Contains(out.String(), "ErrForeignCell") {
			t.Errorf("inspect does not point at the foreign cell:\n%s", out)
		}
	})
}

func TestInspect_ShowsOwnersAgesAndTTLs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := model.New(&clock.Local{})
		q, _ := queuelock.New(store, &queuelock.Options{ProcessID: "holder", TTL: 30 * time.Second})
		defer q.Close(context.Background())
		h, err := q.Lock(t.Context(), "invoice/42")
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2500 * time.Millisecond) // fake time: the cell ages, renewal keeps it
		a, out, _ := modelApp(store, "")
		mustRun(t, a, "inspect", "invoice/42")
		for _, want := range []string{
			`lock "invoice/42" in keyspace locks`,
			"queue lock (table queue_lock; modes new, combined): held by " + h.Owner() + ", 1 in line",
			"owner  " + h.Owner(), "queue  " + h.Owner(), "2.5s  2.5s ago",
			" 28s", // TTL 30s written 2.5s ago, rounded up to seconds as Cassandra reports it
			"legacy lock (tables legacy_main, legacy_shadow; modes legacy, combined): free",
		} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("inspect output lacks %q:\n%s", want, out)
			}
		}
	})
}

func TestRelease_DeletesADeadOwnersCellsAndLogsEach(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := model.New(&clock.Local{})
		faulty, _ := model.NewFaulty(store, model.FaultConfig{FailBefore: 1})
		faulty.SetEnabled(false)
		dead, _ := shadowlock.New(faulty, &shadowlock.Options{ProcessID: "dead", TTL: 60 * time.Second})
		defer dead.Close(context.Background())
		h, err := dead.Lock(t.Context(), "res")
		if err != nil {
			t.Fatal(err)
		}
		faulty.SetEnabled(true) // the owner is cut off: it renews no more, its cell lives on
		time.Sleep(30 * time.Second)

		other, _ := shadowlock.New(store, &shadowlock.Options{ProcessID: "other", TTL: 60 * time.Second}) // one TTL per table
		defer other.Close(context.Background())
		if _, err := other.TryLock(t.Context(), "res"); err == nil {
			t.Fatal("TryLock succeeded beside the dead owner's cell")
		}

		a, out, errOut := modelApp(store, "")
		mustRun(t, a, "release", "--force", "--yes", "res")
		if !strings.Contains(out.String(), "deleted 1 of 1 cell(s)") || strings.Contains(out.String(), "WARNING") {
			t.Errorf("release output:\n%s", out)
		}
		if log := errOut.String(); strings.Count(log, "lockctl release: deleted cell") != 1 ||
			!strings.Contains(log, "table=legacy_main") || !strings.Contains(log, "column="+h.Owner()) {
			t.Errorf("release log:\n%s", log)
		}
		l, err := other.TryLock(t.Context(), "res")
		if err != nil {
			t.Fatalf("TryLock after release --force: %v", err)
		}
		l.Unlock(t.Context())
	})
}

func TestRelease_LiveOwnerWritesItsCellBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := model.New(&clock.Local{})
		q, _ := queuelock.New(store, &queuelock.Options{ProcessID: "alive", TTL: 6 * time.Second})
		defer q.Close(context.Background())
		h, err := q.Lock(t.Context(), "res")
		if err != nil {
			t.Fatal(err)
		}
		a, out, _ := modelApp(store, "")
		mustRun(t, a, "release", "--force", "--yes", "res")
		if !strings.Contains(out.String(), "WARNING: 2 cell(s) were written within the last third of their TTL") {
			t.Errorf("no warning about a live owner:\n%s", out)
		}
		time.Sleep(1500 * time.Millisecond) // past one renewal (TTL/3)
		lc, _ := readLock(t.Context(), store, schema.DefaultTables(), "res", false)
		if len(lc.owners) != 1 || lc.owners[0].id != h.Owner() {
			t.Errorf("the renewing owner's cell did not come back: %+v", lc.owners)
		}
		select {
		case <-h.Lost():
			t.Error("the live owner lost its lease")
		default:
		}
	})
}

func TestRelease_WithoutConfirmationDeletesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := model.New(&clock.Local{})
		s, _ := shadowlock.New(store, nil)
		defer s.Close(context.Background())
		if _, err := s.Lock(t.Context(), "res"); err != nil {
			t.Fatal(err)
		}
		for _, answer := range []string{"", "no\n", "n\n", "YESS\n"} {
			a, out, errOut := modelApp(store, answer)
			if code := a.run(t.Context(), []string{"release", "--force", "res"}); code != exitRefused {
				t.Errorf("answer %q: exit %d", answer, code)
			}
			if !strings.Contains(out.String(), "Delete these 1 cell(s)? Type yes to continue:") ||
				!strings.Contains(errOut.String(), "not confirmed: nothing deleted") {
				t.Errorf("answer %q: stdout %q stderr %q", answer, out, errOut)
			}
		}
		lc, _ := readLock(t.Context(), store, schema.DefaultTables(), "res", false)
		if len(lc.main) != 1 {
			t.Errorf("main row after refused releases: %v", lc.main)
		}
		a, out, _ := modelApp(store, "yes\n")
		mustRun(t, a, "release", "--force", "res")
		if !strings.Contains(out.String(), "deleted 1 of 1") {
			t.Errorf("confirmed release:\n%s", out)
		}
	})
}

func TestPhaseAndFleet_ThroughTheController(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := model.New(&clock.Local{})
		proc, err := migration.New(store, migration.Static(lockstep.ModeLegacy), &migration.Options{ProcessID: "web-1", Host: "h1", Version: "v7"})
		if err != nil {
			t.Fatal(err)
		}
		defer proc.Close(context.Background())
		synctest.Wait() // the first heartbeat

		a, out, _ := modelApp(store, "")
		mustRun(t, a, "fleet")
		for _, want := range []string{"phase: legacy (processes may take locks in: legacy, combined)",
			"1 live process(es) in locks.fleet_census", "web-1", "h1", "v7", "legacy",
			"moving to combined: no live process blocks it"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("fleet output lacks %q:\n%s", want, out)
			}
		}
		a, out, _ = modelApp(store, "")
		mustRun(t, a, "phase", "set", "combined")
		if !strings.Contains(out.String(), "phase: legacy -> combined") {
			t.Errorf("phase set combined: %s", out)
		}
		a, out, errOut := modelApp(store, "")
		if code := a.run(t.Context(), []string{"phase", "set", "new"}); code != exitRefused {
			t.Errorf("phase set new beside a legacy process: exit %d", code)
		}
		if !strings.Contains(errOut.String(), "web-1 on h1 (configured legacy)") || out.Len() != 0 {
			t.Errorf("refusal does not name the blocker: stderr %q stdout %q", errOut, out)
		}
		a, out, _ = modelApp(store, "")
		mustRun(t, a, "fleet")
		if !strings.Contains(out.String(), "moving to new: blocked: migration: phase move combined -> new refused") {
			t.Errorf("fleet does not show the blocked move:\n%s", out)
		}
		a, out, _ = modelApp(store, "")
		mustRun(t, a, "phase", "get")
		if strings.TrimSpace(out.String()) != "phase: combined (processes may take locks in: legacy, combined)" {
			t.Errorf("phase get: %q", out)
		}
	})
}
