package check

import (
	"testing"
	"time"

	"github.com/lockstep-go/lockstep/robustness/history"
)

// Moves counts finished moves by language, their times' quantiles, the
// locks kept and lost, and failed moves apart; Add sums segments.
func TestMoves_SumsAndQuantiles(t *testing.T) {
	ms := []history.Move{
		{Process: "a", Lang: history.LangGo, From: "x", To: "y", BeganNS: 0, EndedNS: int64(10 * time.Millisecond), Kept: 2},
		{Process: "a", Lang: history.LangGo, From: "y", To: "x", BeganNS: 0, EndedNS: int64(30 * time.Millisecond), Kept: 1, Lost: 1},
		{Process: "b", Lang: history.LangPython, From: "x", To: "y", BeganNS: 0, EndedNS: int64(20 * time.Millisecond), Kept: 1},
		{Process: "b", Lang: history.LangPython, From: "y", BeganNS: 0, EndedNS: int64(time.Second), Lost: 3, Err: "no lockd"},
	}
	r := Moves(ms)
	if r.Moves != 3 || r.Go != 2 || r.Python != 1 || r.Failed != 1 || r.Kept != 4 || r.Lost != 4 {
		t.Fatalf("%+v", r)
	}
	if r.Quantile(0.5) != 20*time.Millisecond || r.Quantile(0.99) != 30*time.Millisecond {
		t.Fatalf("p50 %v p99 %v", r.Quantile(0.5), r.Quantile(0.99))
	}
	var sum MoveReport
	sum.Add(r)
	sum.Add(Moves(ms[:1]))
	if sum.Moves != 4 || sum.Go != 3 || sum.Quantile(0) != 10*time.Millisecond || len(sum.Times) != 4 {
		t.Fatalf("sum %+v", sum)
	}
	if (MoveReport{}).Quantile(0.5) != 0 {
		t.Fatal("no moves: want 0")
	}
}
