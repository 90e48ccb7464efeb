package history

import "testing"

func TestHolder_ProcessOfUndoesIt(t *testing.T) {
	if h := Holder("new-w1", 3); h != "new-w1/g3" || ProcessOf(h) != "new-w1" {
		t.Fatalf("Holder %q, ProcessOf %q", h, ProcessOf(h))
	}
	for _, p := range []string{"new-w1", "w/gx", "/g1", "a.b:c"} {
		if got := ProcessOf(p); got != p {
			t.Errorf("ProcessOf(%q) = %q, want it unchanged", p, got)
		}
	}
}
