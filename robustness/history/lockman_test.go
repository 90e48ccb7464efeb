package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadLockman_RoundTripAndAbsentDir(t *testing.T) {
	dir := t.TempDir()
	if evs, err := ReadLockman(dir); err != nil || evs != nil {
		t.Fatalf("no lockman dir: %v, %v; want nothing and no error", evs, err)
	}
	if err := os.Mkdir(filepath.Join(dir, LockmanDir), 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := Create(filepath.Join(dir, LockmanDir, "w1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := Event{Process: "w1", Op: EvAcquire, ID: "dl-0", Access: "X", InvokeNS: 1, ReturnNS: 2, Outcome: Deadlock,
		Holding: []string{"dl-1:S"}, Cycle: []CycleMember{{Process: "w1:dl", ID: "dl-0", Access: "X", HeldBy: "o", HeldIn: "X"}}}
	if err := w.WriteEvent(want); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	evs, err := ReadLockman(dir)
	if err != nil || len(evs) != 1 || evs[0].Cycle[0].HeldBy != "o" || evs[0].Holding[0] != "dl-1:S" {
		t.Fatalf("read back %+v, %v", evs, err)
	}
}

func TestEventValidate_Refusals(t *testing.T) {
	ok := Event{Process: "w1", Op: EvAcquire, ID: "dl-0", Access: "X", InvokeNS: 1, ReturnNS: 2, Outcome: OK}
	for _, tc := range []struct {
		edit func(*Event)
		want string
	}{
		{func(e *Event) { e.Process = "" }, "no process"},
		{func(e *Event) { e.ID = "" }, "no id"},
		{func(e *Event) { e.ReturnNS = 0 }, "before its invocation"},
		{func(e *Event) { e.Op = "grab" }, "unknown op"},
		{func(e *Event) { e.Outcome = "maybe" }, "unknown outcome"},
		{func(e *Event) { e.Op, e.Outcome = EvRelease, Deadlock }, "only an acquire"},
		{func(e *Event) { e.Access = "IX" }, "want X or S"},
		{func(e *Event) { e.Holding = []string{"dl-1"} }, "want <id>:<access>"},
		{func(e *Event) { e.Op, e.Register = EvWrite, "other" }, "unknown register"},
	} {
		e := ok
		tc.edit(&e)
		if err := e.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", e, err, tc.want)
		}
	}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
}
