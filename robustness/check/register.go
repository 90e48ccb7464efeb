package check

import (
	"fmt"
	"sort"

	"github.com/lockstep-go/lockstep/robustness/register"
)

// checkRegister checks the register's log: the fenced register and, as a
// figure (a violation only with StrictCounter), the unfenced counter.
func checkRegister(ops []register.Op, hs []*hold, opts Options, r *Report) []Violation {
	ops = append([]register.Op(nil), ops...)
	sort.Slice(ops, func(i, j int) bool { return ops[i].Seq < ops[j].Seq })
	type key struct {
		process, lock string
		token         int64
	}
	holds := map[key]*hold{}
	for _, h := range hs {
		holds[key{h.process, h.lock, h.token}] = h
	}
	lastToken := map[string]register.Op{} // lock → last accepted fenced write with a token
	var out []Violation
	for _, op := range ops {
		switch op.Kind {
		case register.WriteFenced:
			if !op.Accepted {
				r.FencedRejected++
				out = append(out, checkRejection(op, holds[key{op.Process, op.Lock, op.Token}])...)
				continue
			}
			r.FencedAccepted++
			if op.Prev != op.Before {
				out = append(out, Violation{Checker: "fenced", Lock: op.Lock, Detail: fmt.Sprintf(
					"lost update: %s (token %d) read %d but overwrote %d with %d at %s (op %d)",
					op.Process, op.Token, op.Prev, op.Before, op.Value, sec(op.AtNS), op.Seq)})
			}
			if op.Token == 0 {
				continue // an unfenced writer: nothing to order
			}
			if last, ok := lastToken[op.Lock]; ok && op.Token <= last.Token {
				out = append(out, Violation{Checker: "fenced", Lock: op.Lock, Detail: fmt.Sprintf(
					"accepted tokens not increasing: %s wrote with token %d at %s (op %d) after %s's token %d (op %d)",
					op.Process, op.Token, sec(op.AtNS), op.Seq, last.Process, last.Token, last.Seq)})
			}
			lastToken[op.Lock] = op
		case register.WriteCounter:
			if op.Prev == op.Before {
				continue
			}
			r.CounterLostUpdates++
			if opts.StrictCounter {
				out = append(out, Violation{Checker: "counter", Lock: op.Lock, Detail: fmt.Sprintf(
					"lost update: %s read %d but overwrote %d at %s (op %d)", op.Process, op.Prev, op.Before, sec(op.AtNS), op.Seq)})
			}
		}
	}
	return out
}

// checkRejection: a fenced write may be rejected only from a holder whose
// lease had lapsed — a successor's token reached the register first, and
// the contract admits a successor only after the holder's deadline.
func checkRejection(op register.Op, h *hold) []Violation {
	if h == nil {
		return []Violation{{Checker: "fenced", Lock: op.Lock, Detail: fmt.Sprintf(
			"write rejected at %s (op %d) from %s with token %d, which no recorded acquisition of that lock returned",
			sec(op.AtNS), op.Seq, op.Process, op.Token)}}
	}
	if d := h.deadline(op.AtNS); op.AtNS < d {
		return []Violation{{Checker: "fenced", Lock: op.Lock, Detail: fmt.Sprintf(
			"write rejected at %s (op %d) from %s (%s, token %d) whose lease was open until at least %s: a token of %d had been admitted meanwhile",
			sec(op.AtNS), op.Seq, op.Process, h.mode, op.Token, sec(d), op.Fence)}}
	}
	return nil
}
