package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lockstep-go/lockstep/robustness/history"
	"github.com/lockstep-go/lockstep/robustness/register"
)

// piece is one stretch of an owner's holding of a tx- id: the holds of the
// processes sharing that owner identity (a giver, then its successors),
// each one beginning before the previous one's certain end.
type piece struct {
	id, owner string
	from, to  int64 // certain
	holds     []*mhold
}

func (p *piece) String() string {
	var who []string
	for _, h := range p.holds {
		s := h.process
		if h.handover != "" {
			s += " (adopted " + h.handover + ")"
		}
		who = append(who, s)
	}
	return fmt.Sprintf("owner %s held by %s from %s until at least %s", p.owner, strings.Join(who, ", then "), sec(p.from), sec(p.to))
}

// checkTransfers judges the transfers of tx- ids: the sharers of one owner
// count as one holder, so an owner's holds that follow one another without
// a gap (the successor's Adopt returned before the giver's last certain
// instant) are one continuous hold; and two owners' pieces of one id must
// never certainly overlap — no third process inside a transfer, and none
// admitted in a gap while the successor still held. The fenced register of
// each tx- id must lose no update and accept tokens in non-decreasing
// order (a successor writes under its giver's token: equal tokens are one
// acquisition).
func checkTransfers(evs []history.Event, ops []register.Op, r *LockmanReport) []Violation {
	for _, e := range evs {
		switch {
		case e.Op == history.EvShare:
			r.Offered++
		case e.Op == history.EvAdopt && e.Outcome == history.OK:
			r.Adopted++
		}
	}
	hs := buildMholds(evs)
	r.TransferHolds += len(hs)
	out := checkPieces(pieces(hs))
	return append(out, checkTransferRegister(ops, hs, r)...)
}

// pieces merges each owner's holds of an id into continuous pieces.
func pieces(hs []*mhold) []*piece {
	type key struct{ id, owner string }
	by := map[key][]*mhold{}
	for _, h := range hs {
		k := key{h.id, h.owner}
		if h.owner == "" {
			k.owner = fmt.Sprintf("%s@%d", h.process, h.from) // no owner recorded: a holder of its own
		}
		by[k] = append(by[k], h)
	}
	var out []*piece
	for k, l := range by {
		sort.Slice(l, func(i, j int) bool { return l[i].from < l[j].from })
		var cur *piece
		for _, h := range l {
			if cur != nil && h.from <= cur.to {
				cur.to = max(cur.to, h.to)
				cur.holds = append(cur.holds, h)
				continue
			}
			cur = &piece{id: k.id, owner: k.owner, from: h.from, to: h.to, holds: []*mhold{h}}
			out = append(out, cur)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].id != out[j].id {
			return out[i].id < out[j].id
		}
		return out[i].from < out[j].from
	})
	return out
}

// checkPieces reports every pair of pieces of different owners of one id
// that certainly overlapped.
func checkPieces(ps []*piece) []Violation {
	var out []Violation
	for i, a := range ps {
		for _, b := range ps[i+1:] {
			if b.id != a.id || b.from >= a.to {
				break
			}
			if a.owner == b.owner || b.from >= b.to {
				continue
			}
			out = append(out, Violation{Checker: "transfer", Lock: a.id, Detail: fmt.Sprintf("%s; %s: two owners at once", a, b)})
		}
	}
	return out
}

// checkTransferRegister checks the tx- ids' fenced registers and counts
// the successors' accepted writes.
func checkTransferRegister(ops []register.Op, hs []*mhold, r *LockmanReport) []Violation {
	ops = append([]register.Op(nil), ops...)
	sort.Slice(ops, func(i, j int) bool { return ops[i].Seq < ops[j].Seq })
	type key struct {
		process, id string
		token       int64
	}
	adopted := map[key]bool{}
	for _, h := range hs {
		if h.handover != "" {
			adopted[key{h.process, h.id, h.token}] = true
		}
	}
	last := map[string]register.Op{}
	var out []Violation
	for _, op := range ops {
		if op.Kind != register.WriteFenced || !op.Accepted || !strings.HasPrefix(op.Lock, TransferPrefix) {
			continue
		}
		if adopted[key{op.Process, op.Lock, op.Token}] {
			r.SuccessorWrites++
		}
		if op.Prev != op.Before {
			out = append(out, Violation{Checker: "transfer", Lock: op.Lock, Detail: fmt.Sprintf(
				"lost update on the fenced register: %s (token %d) read %d but overwrote %d with %d at %s (op %d)",
				op.Process, op.Token, op.Prev, op.Before, op.Value, sec(op.AtNS), op.Seq)})
		}
		if l, ok := last[op.Lock]; ok && op.Token < l.Token {
			out = append(out, Violation{Checker: "transfer", Lock: op.Lock, Detail: fmt.Sprintf(
				"accepted tokens decreasing: %s wrote with token %d at %s (op %d) after %s's token %d (op %d)",
				op.Process, op.Token, sec(op.AtNS), op.Seq, l.Process, l.Token, l.Seq)})
		}
		last[op.Lock] = op
	}
	return out
}
