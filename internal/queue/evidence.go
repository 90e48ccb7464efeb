package queue

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/layout"
	"github.com/lockstep-go/lockstep/internal/lifecycle"
)

// Evidence-ordered fencing (Options.Evidence; docs/algorithms.md, section
// 5.3). A token drawn after the claim won is above every earlier
// incompatible holder's (Theorem 6), at the price of two sequential
// requests. A token drawn beside the claim — the global cell's read sent
// with the claim's write, its write with the claim's read — may be served
// before an earlier holder A's draw returned. But then A's lease was open
// after the claim's lease began, so A's owner cell (or handed cell)
// outlives the claim's read (Lemma 4, with one TTL per table), and the
// claim can win only if A's Locker deleted or overwrote that cell first.
// Every such request of a recording Locker carries, in the same mutation,
// the evidence cell with the highest token of a draw through its
// Options.Fencing that returned (clock.Global.Drawn): a composer drawing
// the tokens of locks this Locker takes a part of draws them through the
// same Global (Recording). So the winning read shows evidence of at least
// A's token (Lemma 15), or an evidence version at least that high has
// expired, which the draw beside the claim, sent later, is above (Lemma
// 16); a token drawn beside the claim is kept only above the evidence read
// (Theorem 6b). A queuelock Locker also takes tokens from values its Fencing
// drew ahead with an earlier such draw, under the same two conditions, with
// the lease counted from that draw's read when it is the earlier. Anything
// else falls back to the draw after the claim.

// Evidence is how a fenced queue Locker takes part in evidence-ordered
// fencing.
type Evidence uint8

const (
	// EvidenceOff records nothing, and draws each token after its claim
	// won.
	EvidenceOff Evidence = iota
	// EvidenceRecord writes the evidence cell beside every request that
	// deletes or writes one of this Locker's owner cells (a renewal of a
	// live hold's own cell aside), and still draws each token after its
	// claim won. Every Locker that takes fenced locks of the table must
	// record before any uses evidence.
	EvidenceRecord
	// EvidenceUse records as EvidenceRecord does, and draws a claim's token
	// beside the claim, keeping it only when it is above the evidence the
	// winning claim read returned (else it draws again after the claim).
	EvidenceUse
)

func (e Evidence) String() string {
	switch e {
	case EvidenceOff:
		return "off"
	case EvidenceRecord:
		return "record"
	case EvidenceUse:
		return "use"
	}
	return fmt.Sprintf("Evidence(%d)", uint8(e))
}

// checkEvidence refuses an Evidence that is not one of the three, or that is
// set without Fencing.
func (c config) checkEvidence() error {
	switch {
	case c.evidence > EvidenceUse:
		return &lockstep.ConfigError{Field: "Evidence", Reason: fmt.Sprintf("%v is not a setting: use EvidenceOff, EvidenceRecord or EvidenceUse", c.evidence)}
	case c.evidence != EvidenceOff && c.Fencing == nil:
		return &lockstep.ConfigError{Field: "Evidence", Reason: fmt.Sprintf("%v needs Fencing: evidence records fencing tokens; set Fencing too, or leave Evidence off", c.evidence)}
	}
	return nil
}

// checkEvidenceStore refuses a recording Locker on a store that cannot write
// a cell and tombstones in one request: its evidence must land in the same
// mutation as the delete it stands for.
func checkEvidenceStore(store lockstep.Store, e Evidence) error {
	if _, ok := store.(lockstep.Mutator); e != EvidenceOff && !ok {
		return &lockstep.ConfigError{Field: "Evidence", Reason: fmt.Sprintf(
			"%v needs a store that writes cells and tombstones in one request (lockstep.Mutator, as cassandra.Store does); use such a store, or leave Evidence off", e)}
	}
	return nil
}

// evidenceCell returns the evidence cell a request that deletes or writes
// one of this Locker's owner cells carries: the highest token of a draw
// through Options.Fencing that returned (clock.Global.Drawn), or that this
// Locker adopted with a shared lock (Adopt), if higher. ok is false when
// the Locker records none, or nothing has been drawn yet (so no hold has a
// token to record).
func (l *Locker) evidenceCell() (c lockstep.Cell, ok bool) {
	if l.cfg.evidence == EvidenceOff || l.cfg.knobs.RecordNoEvidence {
		return lockstep.Cell{}, false
	}
	v := max(l.cfg.Fencing.Drawn(), l.adoptedToken.Load())
	if v <= 0 {
		return lockstep.Cell{}, false
	}
	return layout.EvidenceCell(v, l.cfg.Lease.TTL), true
}

// noteAdoptedToken notes the fencing token of a lock this Locker adopts, drawn by
// another process: its release must record it too.
func (l *Locker) noteAdoptedToken(token int64) {
	for {
		old := l.adoptedToken.Load()
		if token <= old || l.adoptedToken.CompareAndSwap(old, token) {
			return
		}
	}
}

// remove writes tombstones with timestamp ts for cols of id, and the
// evidence cell beside them when the Locker records it, in one request.
// A recording Locker whose store turned out to refuse PutDelete (a wrapper
// over a store without it) sends nothing and returns the refusal: what it
// would have deleted expires after the TTL instead, which needs no
// evidence (docs/algorithms.md, section 5.3).
func (l *Locker) remove(ctx context.Context, id string, ts int64, cols ...string) error {
	ec, ok := l.evidenceCell()
	if !ok {
		return l.store.Delete(ctx, l.cfg.table, id, ts, cols...)
	}
	m, _ := l.store.(lockstep.Mutator) // checkEvidenceStore: it is one
	return m.PutDelete(ctx, l.cfg.table, id, ts, cols, ec)
}

// withEvidence appends the evidence cell to cells that write an owner cell,
// when the Locker records it.
func (l *Locker) withEvidence(cells []lockstep.Cell) []lockstep.Cell {
	if ec, ok := l.evidenceCell(); ok {
		return append(cells, ec)
	}
	return cells
}

// claimEvidence is the evidence a claim's write carries, the claim
// overwriting the owner cell of this Locker's previous acquisition of the id
// (nil when it records none). It must be taken before drawBeside: taken
// after, it could record the claim's own draw, which would then never be
// above the evidence its read returns.
func (a *attempt) claimEvidence() []lockstep.Cell { return a.l.withEvidence(nil) }

// earlyDraw is a token draw sent beside a claim (EvidenceUse).
type earlyDraw chan drawn

type drawn struct {
	token int64
	err   error
}

// drawBeside starts the draw of a fenced claim's token beside the claim
// whose lease counts from since, when the Locker uses evidence; the claim's
// write must be sent after this call returns, so that the draw's read is
// sent no earlier than the lease starts. a.keep takes the result (earlyToken).
//
// A Locker that takes values ahead (l.ahead) first tries those its Fencing
// drew, when no claim read of the id in the last TTL showed another
// process's record (evidenceOwn): then no request is sent at all.
// Otherwise its draw beside the claim reserves values for aheadClaims
// later claims.
func (a *attempt) drawBeside(ctx context.Context, since int64) {
	a.early, a.earlySent, a.evidence, a.drawnBefore = nil, math.MaxInt64, 0, -1 // a.evidence is the coming read's
	f := a.l.cfg.Fencing
	if a.l.cfg.evidence != EvidenceUse || f == nil || !a.fence {
		return
	}
	a.drawnBefore = f.Drawn()
	d := make(earlyDraw, 1)
	a.early = d
	block := max(1, a.block)
	if a.l.ahead && a.l.evidenceOwn(a.id) {
		// Younger than half a window, and, for an admitted acquisition,
		// sent after the admission: since − age > aheadSince.
		maxAge := a.l.cfg.Lease.Window() / 2
		if a.knobs.AheadPastWindow {
			maxAge = 1 << 62
		}
		if a.aheadSince > 0 {
			maxAge = min(maxAge, time.Duration(since-a.aheadSince)*time.Microsecond)
		}
		if t, age, ok := f.TakeAhead(block, maxAge); ok {
			// The Global times on its own clock; since, this claim's
			// stamp, was taken before the age was measured.
			a.earlySent = since - age.Microseconds()
			a.l.aheadTaken.Add(1)
			d <- drawn{t, nil}
			return
		}
	}
	extra := 0
	if a.l.ahead {
		extra = aheadClaims * block
	}
	a.requests += 2
	lifecycle.Go(a.l.cfg.Clock, func() {
		t, err := f.ReserveAhead(ctx, block, extra)
		d <- drawn{t, err}
	})
}

// dropEarly forgets the draw sent beside a claim that did not win (*ok
// false or *err set): only the claim it was sent beside may keep it.
func (a *attempt) dropEarly(ok *bool, err *error) {
	if !*ok || *err != nil {
		a.early = nil
	}
}

// earlyToken returns the token drawn beside the claim whose write was sent
// at since, or taken for it from the values drawn ahead, if it may be kept:
// drawn without error, above the evidence the winning claim read returned
// (a.evidence), and in while a lease counted from the earlier of since and
// the draw's read (a.earlySent) was open (Theorem 6b). Otherwise the caller
// draws after the claim, as without evidence.
func (a *attempt) earlyToken(since int64) (int64, bool) {
	d := a.early
	a.early = nil
	if d == nil {
		return 0, false
	}
	r := <-d
	from := min(since, a.earlySent)
	if a.knobs.AheadPastWindow {
		from = since
	}
	below := r.token <= a.evidence && !a.knobs.KeepBelowEvidence
	if a.earlySent != math.MaxInt64 && r.err == nil {
		if below {
			a.l.aheadBelow.Add(1)
		} else if a.inTime(from) {
			a.l.aheadKept.Add(1)
		}
	}
	if r.err != nil || below || !a.inTime(from) {
		return 0, false
	}
	return r.token, true
}

// AheadCounts counts the claims of a Locker that took their token from the
// values its Fencing drew ahead (clock.Global.TakeAhead).
type AheadCounts struct {
	Taken int64 // claims that took a token so
	// Kept: winning claims that kept it, above the evidence their read
	// returned and within the window of the draw's read (earlyToken);
	// BelowEvidence: winning claims whose token was not above that
	// evidence, and that drew again.
	Kept, BelowEvidence int64
}

// AheadTaken returns what AheadCounts counts of l: all 0 for a Locker that
// does not take values drawn ahead (at EvidenceUse, a queuelock Locker
// does, and a migration Locker's queue Locker does for mode new:
// Locker.TakeAhead). For tests and diagnostics.
func (l *Locker) AheadTaken() AheadCounts {
	return AheadCounts{Taken: l.aheadTaken.Load(), Kept: l.aheadKept.Load(), BelowEvidence: l.aheadBelow.Load()}
}

// aheadClaims is for how many later claims a draw beside a claim reserves
// values ahead of its own block, each claim's block as large as this one's
// (clock.Global.ReserveAhead): 64 values for locks without local handoff.
// Each draw raises the global cell by as much more, against the
// microseconds of wall time it otherwise tracks.
const aheadClaims = 64

// noteEvidence remembers of id what the read of a claim that drew beside
// it, or took a value ahead, showed: evidence e above what this process had
// drawn before that draw (drawnBefore) is another process's record of a
// later draw, which values drawn ahead before it are below. Such an id is
// passing between processes, so its claims draw beside themselves for a
// TTL after the last such read; an id whose reads show only this process's
// records takes values ahead. The claim's own draw is left out: it usually
// returns before the read, and would make another process's record look
// like this one's.
func (l *Locker) noteEvidence(id string, e, drawnBefore int64) {
	if !l.ahead || drawnBefore < 0 {
		return
	}
	now := l.cfg.Clock.Elapsed()
	l.floors.mu.Lock()
	defer l.floors.mu.Unlock()
	if en, ok := l.floors.m[id]; ok {
		en.evidenceRead = true
		if e > drawnBefore {
			en.foreignUntil = now + l.cfg.Lease.TTL.Microseconds()
		}
		l.floors.m[id] = en
	}
}

// evidenceOwn reports whether a claim of id may take a value drawn ahead:
// a claim read of it drew, and none showed another process's record for a
// TTL (noteEvidence).
func (l *Locker) evidenceOwn(id string) bool {
	now := l.cfg.Clock.Elapsed()
	l.floors.mu.Lock()
	defer l.floors.mu.Unlock()
	en := l.floors.m[id]
	return en.evidenceRead && now >= en.foreignUntil
}
