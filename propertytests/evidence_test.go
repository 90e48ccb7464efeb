package propertytests

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/internal/manager"
	queuecore "github.com/lockstep-go/lockstep/internal/queue"
	"github.com/lockstep-go/lockstep/model/sim"
	"github.com/lockstep-go/lockstep/queuelock"
)

// Evidence-ordered fencing (queuelock.Options.Evidence; docs/algorithms.md,
// section 5.3). At EvidenceUse a claim draws its token beside the claim, or
// a queuelock Locker's takes it from the values its process drew ahead
// (earlier still, with no request), so the draw's read of the global cell
// may be served before an earlier incompatible holder A's draw completed,
// and return a value below A's token; the claim keeps its early token only
// above the evidence its winning read returned, which A's release (or any
// delete or overwrite of A's owner cell) wrote in the same request.
// Property 4 (fencing_test.go) is what must hold; this file builds the
// fleet that reaches the case only evidence protects, and counts how often
// it does, from the store requests (which goroutine drew each token, and
// what its global read returned) and the queue Lockers' own counts of
// values taken ahead.

// evidenceFleet is three queue processes on one id, run at EvidenceUse with
// short holds from the race evidence is for (evidenceVariant).
var evidenceFleet = fleet{name: "new×3", kinds: []kind{queue, queue, queue}, starvationFree: true}

// evidenceChecks and deepEvidenceChecks are the evidence fleet's rapid
// checks by default and under LOCKSTEP_DEEP=1: a check costs about 30 ms,
// and about one in fifty reaches the race.
const evidenceChecks, deepEvidenceChecks = 600, 6000

// evidenceVariant is the variant the evidence fleet runs at: every queue
// Locker at EvidenceUse, with steps of work of 50 ms, so that a holding
// (two steps) ends well within a lease window of its claim and the next
// claims race its draw.
var evidenceVariant = variant{evidence: queuelock.EvidenceUse, stepOfWork: 50 * time.Millisecond, fromRace: true}

// TestNewEvidenceFleet_TokenOrderWithDrawsBesideClaims runs the evidence
// fleet (property 4 above all: token order is ownership order) and logs how
// often a token drawn beside its claim, or taken from the values drawn
// ahead (the fleet's Lockers are queuelock Lockers, which take them), was
// kept, and how often an early token was refused by the evidence and drawn
// again: for a draw beside the claim, counted only when its read had missed
// the previous incompatible holder's token (the case evidence alone makes
// safe); for a value taken ahead, whenever it was not above the evidence
// read, which includes refusals of values above the previous holder's
// token but below a later record (a withdrawn claim's). The default checks
// reach them now and then; under LOCKSTEP_DEEP=1 a run that never refuses
// one, or never keeps a value drawn ahead, checked nothing of them, so the
// test fails then.
func TestNewEvidenceFleet_TokenOrderWithDrawsBesideClaims(t *testing.T) {
	st := checkFleetOf(t, evidenceFleet, evidenceVariant, evidenceChecks, deepEvidenceChecks)
	e := st.evidence
	logEvidence(t, e)
	if deep && (e.kept == 0 || e.keptAhead == 0 || e.redrawnMissed+e.redrawnAhead == 0) {
		t.Errorf("the fleet never reached the case evidence protects (kept %d tokens drawn beside the claim and %d taken ahead; %d early draws missed the previous holder's token and %d values taken ahead were not above the evidence, and were drawn again)",
			e.kept, e.keptAhead, e.redrawnMissed, e.redrawnAhead)
	}
}

// logEvidence logs what e counted, and fails the test if a token was not
// traced to a draw (the counts would be wrong).
func logEvidence(t *testing.T, e evidenceStats) {
	t.Helper()
	ahead := "values drawn ahead not counted: the fleet's Lockers are not queuelock Lockers, whose counts the checker reads (a token kept from them counts as drawn beside the claim)"
	if e.aheadCounted {
		ahead = fmt.Sprintf("%d kept a token taken from values drawn ahead, %d of them after another process's holding (%d claims took one, winning or not), and %d drew again after the claim because the value taken was not above the evidence",
			e.keptAhead, e.keptAheadAfterOther, e.aheadTaken, e.redrawnAhead)
	}
	t.Logf("evidence: %d fenced acquisitions; %d claimed while the previous incompatible holder's draw was in flight; %d kept the token drawn beside the claim, %d of them drawn by a read that missed the previous holder's token (%d with no earlier holder); %d drew again after the claim, %d of them after a draw beside it that had missed the previous holder's token; %s; %d tokens not traced to a draw",
		e.fenced, e.raced, e.kept, e.keptMissed, e.keptFirst, e.redrawn, e.redrawnMissed, ahead, e.untraced)
	if e.untraced > 0 {
		t.Errorf("%d tokens not traced to a draw of their process: the counts above are wrong", e.untraced)
	}
}

// evidenceStats counts what the evidence log saw at acquisitions.
type evidenceStats struct {
	fenced int // acquisitions with a token, at EvidenceUse
	// kept: the token was drawn beside the winning claim (by a goroutine
	// the claim's started); keptMissed: that draw's read returned less
	// than the previous incompatible holder's token (it was served before
	// that holder's draw completed); keptFirst: no earlier incompatible
	// holder.
	kept, keptMissed, keptFirst int
	// redrawn: the token was drawn after the claim, by the claim's own
	// goroutine; redrawnMissed: the draw beside that claim had missed the
	// previous incompatible holder's token.
	redrawn, redrawnMissed int
	untraced               int // tokens no draw of their process wrote
	// raced: the claim was sent before the previous incompatible holder's
	// draw was acknowledged.
	raced int
	// combined: tokens of locks of mode combined, drawn once both halves
	// were held (never beside a claim; their queue half records them).
	combined int
	// afterCombined: locks of mode new whose previous incompatible holder
	// was of mode combined; keptAfterCombined: of them, those that kept
	// the token drawn beside the claim; redrawnMissedCombined: those whose
	// draw beside the claim missed the combined holder's token and that
	// drew again after the claim (the cross-mode race).
	afterCombined, keptAfterCombined, redrawnMissedCombined int
	// keptAhead: the token was taken from values drawn ahead by an earlier
	// draw of its process (queuelock Lockers: clock.Global.TakeAhead), and
	// kept; keptAheadAfterOther: of them, those whose previous
	// incompatible holder was another process; redrawnAhead: drawn again
	// after the claim, the value taken ahead for it being not above the
	// evidence its read returned. aheadTaken: the claims that took a
	// value so, winning or not (the Lockers' own count, at each run's end).
	keptAhead, keptAheadAfterOther, redrawnAhead, aheadTaken int
	// aheadCounted: the run's Lockers' counts of values taken ahead were
	// read (queuelock Lockers: aheadTaken).
	aheadCounted bool
}

func (s *evidenceStats) add(o evidenceStats) {
	s.fenced += o.fenced
	s.kept += o.kept
	s.keptMissed += o.keptMissed
	s.keptFirst += o.keptFirst
	s.redrawn += o.redrawn
	s.redrawnMissed += o.redrawnMissed
	s.untraced += o.untraced
	s.raced += o.raced
	s.combined += o.combined
	s.afterCombined += o.afterCombined
	s.keptAfterCombined += o.keptAfterCombined
	s.redrawnMissedCombined += o.redrawnMissedCombined
	s.keptAhead += o.keptAhead
	s.keptAheadAfterOther += o.keptAheadAfterOther
	s.redrawnAhead += o.redrawnAhead
	s.aheadTaken += o.aheadTaken
	s.aheadCounted = s.aheadCounted || o.aheadCounted
}

// evidenceStats returns what the run counted at acquisitions, with the
// claims its Lockers took values drawn ahead for.
func (h *harness) evidenceStats() evidenceStats {
	st := h.draws.stats
	for _, pr := range h.procs {
		st.aheadTaken += int(aheadTaken(pr.locker).Taken)
		_, ok := pr.locker.(*queuelock.Locker)
		st.aheadCounted = st.aheadCounted || ok
	}
	return st
}

// aheadTaken is queue.Locker.AheadTaken of l's queue Locker when l is a
// queuelock Locker, the only kind that takes values drawn ahead; zero
// otherwise.
func aheadTaken(l lockstep.Locker) queuecore.AheadCounts {
	ql, ok := l.(*queuelock.Locker)
	if !ok {
		return queuecore.AheadCounts{}
	}
	return queuecore.Core((*manager.Locker)(ql)).AheadTaken()
}

// aheadOf reports whether, since pr's previous acquisition, pr's Locker
// kept a token taken from values drawn ahead (kept), or drew again after
// a winning claim because the value it took was not above the evidence
// (below); the caller holds h.mu. A process of a fleet at evidence runs
// one Lock call at a time, so both are of the acquisition being counted.
func (h *harness) aheadOf(pr *proc) (kept, below bool) {
	c := aheadTaken(pr.locker)
	was := h.draws.ahead[pr.sp.Name]
	h.draws.ahead[pr.sp.Name] = c
	return c.Kept > was.Kept, c.BelowEvidence > was.BelowEvidence
}

// draw is one global-time draw as the store saw it: the read's answer, then
// the write of the block's last value, by one goroutine.
type draw struct {
	goroutine string // "<process> <label>"
	parent    string // the goroutine that started it
	readSent  int64  // virtual µs
	read      int64  // the global cell's value the read returned, 0 if none
	// written is the virtual µs the write was acknowledged at, 0 before.
	written int64
}

// drawLog pairs each goroutine's global write with its latest global read.
type drawLog struct {
	lastRead map[string]draw // goroutine → its latest global read
	// written: "<process> <value>" → the draw that wrote value, the last
	// of its block; ends: process → the values its draws wrote, ascending.
	written map[string]draw
	ends    map[string][]int64
	// byParent: goroutine → the latest draw of a goroutine it started.
	byParent map[string]draw
	// claimBy: the goroutine that sent an acquisition's latest claim.
	claimBy map[claimKey]string
	// ahead: process → its Locker's counts of tokens taken from values
	// drawn ahead, as of its latest acquisition (aheadOf).
	ahead map[string]queuecore.AheadCounts
	stats evidenceStats
}

func newDrawLog() *drawLog {
	return &drawLog{lastRead: map[string]draw{}, written: map[string]draw{}, ends: map[string][]int64{},
		byParent: map[string]draw{}, claimBy: map[claimKey]string{}, ahead: map[string]queuecore.AheadCounts{}}
}

// drawOf returns the draw of process proc whose block holds value v: a
// draw writes the last value of its block, and one Global's blocks follow
// one another, so it is the draw that wrote the least value at or above v.
// A block drawn ahead (clock.Global.ReserveAhead) holds the tokens later
// taken from it too.
func (l *drawLog) drawOf(proc string, v int64) (draw, bool) {
	ends := l.ends[proc]
	i, _ := slices.BinarySearch(ends, v)
	if i == len(ends) {
		return draw{}, false
	}
	d, ok := l.written[fmt.Sprintf("%s %d", proc, ends[i])]
	return d, ok
}

// goroutineOf names y's goroutine across the fleet, and the goroutine that
// started it ("" for a root).
func goroutineOf(y *sim.Yield) (name, parent string) {
	g := y.Goroutine()
	name = y.Proc.Name + " " + g
	if i := strings.LastIndexByte(g, '.'); i >= 0 {
		parent = y.Proc.Name + " " + g[:i]
	}
	return name, parent
}

// noteGlobal records a finished read of the global cell, or the send of a
// write to it, for the evidence counts.
func (h *harness) noteGlobal(e sim.StoreEvent) {
	y := e.Yield
	if h.draws == nil || y.Table != clock.DefaultGlobalTable {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	g, parent := goroutineOf(y)
	switch {
	case y.Kind == sim.Read && e.Done && e.Err == nil:
		d := draw{goroutine: g, parent: parent, readSent: y.SentElapsed}
		if len(e.Cells) > 0 && len(e.Cells[0].Value) == 8 {
			d.read = int64(binary.BigEndian.Uint64(e.Cells[0].Value))
		}
		h.draws.lastRead[g] = d
	case y.Kind == sim.Put && !e.Done && len(y.Cells) == 1:
		d, ok := h.draws.lastRead[g]
		if !ok {
			return
		}
		v := y.Cells[0].Timestamp
		h.draws.written[fmt.Sprintf("%s %d", y.Proc.Name, v)] = d
		ends := h.draws.ends[y.Proc.Name]
		if i, found := slices.BinarySearch(ends, v); !found {
			h.draws.ends[y.Proc.Name] = slices.Insert(ends, i, v)
		}
		if parent != "" {
			h.draws.byParent[parent] = d
		}
	case y.Kind == sim.Put && e.Done && e.Err == nil && len(y.Cells) == 1:
		k := fmt.Sprintf("%s %d", y.Proc.Name, y.Cells[0].Timestamp)
		if d, ok := h.draws.written[k]; ok {
			d.written = h.s.Now()
			h.draws.written[k] = d
		}
	}
}

// noteClaimBy records the goroutine that sent a claim of key.
func (h *harness) noteClaimBy(key claimKey, y *sim.Yield) {
	if h.draws != nil {
		g, _ := goroutineOf(y)
		h.draws.claimBy[key] = g
	}
}

// countDraw classifies the token of handout now, taken by pr, against the
// previous incompatible holder's; the caller holds h.mu, before now is
// recorded. A lock of mode combined draws its token after both halves
// are held, by the goroutine that took them: it is counted apart, never
// as drawn again.
func (h *harness) countDraw(pr *proc, now handout) {
	if h.draws == nil {
		return
	}
	st := &h.draws.stats
	st.fenced++
	var prev handout
	first := true
	for _, o := range h.fencing.handed {
		if o.id == now.id && !o.access.Compatible(now.access) && o.start < now.start && (first || o.start >= prev.start) {
			prev, first = o, false
		}
	}
	if !first {
		proc, _, _ := strings.Cut(prev.owner, ".")
		if pd, ok := h.draws.drawOf(proc, prev.token); ok && pd.written >= now.start {
			st.raced++
		}
	}
	d, ok := h.draws.drawOf(pr.sp.Name, now.token)
	claimer := h.draws.claimBy[claimKey{now.owner, now.id}]
	keptAhead, belowAhead := h.aheadOf(pr)
	afterCombined := !first && prev.mode == lockstep.ModeCombined && now.mode != lockstep.ModeCombined
	traced := ok && claimer != ""
	if afterCombined && traced {
		st.afterCombined++
	}
	switch {
	case !traced:
		st.untraced++
	case now.mode == lockstep.ModeCombined:
		st.combined++
	case keptAhead:
		st.keptAhead++
		if proc, _, _ := strings.Cut(prev.owner, "."); !first && proc != pr.sp.Name {
			st.keptAheadAfterOther++
		}
	case d.goroutine != claimer:
		st.kept++
		if afterCombined {
			st.keptAfterCombined++
		}
		switch {
		case first:
			st.keptFirst++
		case d.read < prev.token:
			st.keptMissed++
		}
	default:
		st.redrawn++
		if belowAhead {
			st.redrawnAhead++
		}
		if b, ok := h.draws.byParent[claimer]; ok && !first && b.readSent >= now.start && b.read < prev.token {
			st.redrawnMissed++
			if afterCombined {
				st.redrawnMissedCombined++
			}
		}
	}
}
