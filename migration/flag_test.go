package migration

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
)

func TestStatic_AnswersItsModeAndRefusesAnInvalidOne(t *testing.T) {
	ctx := context.Background()
	if m, err := Static(lockstep.ModeCombined).Mode(ctx); err != nil || m != lockstep.ModeCombined {
		t.Fatalf("Static(combined) = %v, %v", m, err)
	}
	if _, err := Static(lockstep.Mode(9)).Mode(ctx); !errors.Is(err, lockstep.ErrInvalidMode) {
		t.Fatalf("Static(9) error = %v, want ErrInvalidMode", err)
	}
}

func TestEnv_ReadsTheVariableOnEveryCall(t *testing.T) {
	ctx := context.Background()
	f := Env("LOCKSTEP_TEST_MODE")
	t.Setenv("LOCKSTEP_TEST_MODE", "legacy")
	if m, err := f.Mode(ctx); err != nil || m != lockstep.ModeLegacy {
		t.Fatalf("= %v, %v; want legacy", m, err)
	}
	t.Setenv("LOCKSTEP_TEST_MODE", " New ")
	if m, err := f.Mode(ctx); err != nil || m != lockstep.ModeNew {
		t.Fatalf("after change = %v, %v; want new", m, err)
	}
}

func TestEnv_UnknownOrUnsetValueIsInvalidMode(t *testing.T) {
	ctx := context.Background()
	t.Setenv("LOCKSTEP_TEST_MODE", "newest")
	_, err := Env("LOCKSTEP_TEST_MODE").Mode(ctx)
	if !errors.Is(err, lockstep.ErrInvalidMode) {
		t.Fatalf("unknown value: %v, want ErrInvalidMode", err)
	}
	t.Logf("unknown value: %v", err)
	if _, err := Env("LOCKSTEP_TEST_UNSET_VARIABLE").Mode(ctx); !errors.Is(err, lockstep.ErrInvalidMode) {
		t.Fatalf("unset: %v, want ErrInvalidMode", err)
	}
}

func TestFile_RereadsOnlyWhenModTimeOrSizeChange(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mode")
	write := func(s string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(want lockstep.Mode) {
		t.Helper()
		if m, err := File(path).Mode(ctx); err != nil || m != want { // a fresh source reads the file
			t.Fatalf("fresh File = %v, %v; want %v", m, err, want)
		}
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := File(path)
	write("legacy\n", t0)
	if m, err := f.Mode(ctx); err != nil || m != lockstep.ModeLegacy {
		t.Fatalf("= %v, %v; want legacy", m, err)
	}
	// Same size and mtime: the cached answer stands, although the text changed.
	write("new   \n", t0)
	expect(lockstep.ModeNew)
	if m, _ := f.Mode(ctx); m != lockstep.ModeLegacy {
		t.Fatalf("unchanged stat re-read the file: %v", m)
	}
	// A new mtime makes it read again.
	write("new   \n", t0.Add(time.Second))
	if m, _ := f.Mode(ctx); m != lockstep.ModeNew {
		t.Fatalf("after mtime change = %v, want new", m)
	}
	// A new size alone, too.
	write("combined", t0.Add(time.Second))
	if m, _ := f.Mode(ctx); m != lockstep.ModeCombined {
		t.Fatalf("after size change = %v, want combined", m)
	}
}

func TestFile_UnknownModeOrMissingFileIsAnError(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mode")
	if _, err := File(path).Mode(ctx); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if err := os.WriteFile(path, []byte("shadow"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := File(path).Mode(ctx); !errors.Is(err, lockstep.ErrInvalidMode) {
		t.Fatalf("unknown mode: %v, want ErrInvalidMode", err)
	}
}

func TestPhaseFlag_FollowsThePhaseThroughItsCache(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		f, err := NewPhaseFlag(s, &PhaseFlagOptions{Cache: time.Second, Clock: &clock.Local{}})
		if err != nil {
			t.Fatal(err)
		}
		if m, err := f.Mode(ctx); err != nil || m != lockstep.ModeLegacy {
			t.Fatalf("no phase cell: %v, %v; want legacy", m, err)
		}
		setPhase(t, newController(t, s, 0), lockstep.ModeCombined)
		if m, _ := f.Mode(ctx); m != lockstep.ModeLegacy {
			t.Fatalf("within the cache period: %v, want the cached legacy", m)
		}
		time.Sleep(time.Second)
		if m, _ := f.Mode(ctx); m != lockstep.ModeCombined {
			t.Fatalf("after the cache period: %v, want combined", m)
		}
		// A pending move reads as combined, the mode every intent allows.
		if err := writePhase(ctx, s, DefaultPhaseTable, Phase{Mode: lockstep.ModeCombined, Target: lockstep.ModeNew}, time.Now().UnixMicro()+1e6); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		if m, _ := f.Mode(ctx); m != lockstep.ModeCombined {
			t.Fatalf("pending: %v, want combined", m)
		}
	})
}

func TestPhaseFlag_UnparseablePhaseIsInvalidMode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		if err := s.Put(ctx, DefaultPhaseTable, phaseRow, lockstep.Cell{Column: phaseColumn, Value: []byte("pending:legacy->new"), Timestamp: 1}); err != nil {
			t.Fatal(err)
		}
		f, _ := NewPhaseFlag(s, nil)
		if _, err := f.Mode(ctx); !errors.Is(err, lockstep.ErrInvalidMode) {
			t.Fatalf("legacy->new intent: %v, want ErrInvalidMode", err)
		}
	})
}

func TestParsePhase_RoundTripsEveryPhase(t *testing.T) {
	for _, p := range []Phase{
		{Mode: lockstep.ModeLegacy}, {Mode: lockstep.ModeCombined}, {Mode: lockstep.ModeNew},
		{Mode: lockstep.ModeLegacy, Target: lockstep.ModeCombined}, {Mode: lockstep.ModeCombined, Target: lockstep.ModeNew},
		{Mode: lockstep.ModeNew, Target: lockstep.ModeCombined}, {Mode: lockstep.ModeCombined, Target: lockstep.ModeLegacy},
	} {
		got, err := ParsePhase(p.String())
		if err != nil || got != p {
			t.Errorf("ParsePhase(%q) = %v, %v", p.String(), got, err)
		}
	}
	for _, bad := range []string{"", "old", "pending:new", "pending:new->legacy", "pending:combined->combined"} {
		if _, err := ParsePhase(bad); !errors.Is(err, lockstep.ErrInvalidMode) {
			t.Errorf("ParsePhase(%q) error = %v, want ErrInvalidMode", bad, err)
		}
	}
}
