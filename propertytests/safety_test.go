package propertytests

import (
	"fmt"
	"slices"

	"github.com/lockstep-go/lockstep"
)

// The safety check run after every action: mutual exclusion (property 1)
// and the checks of the fleet's own records.

// validLocked reports whether pr believes it holds l: Lost() is open, so a
// correct user would work now. Two such holders of one id at once break
// mutual exclusion, whatever their leases' arithmetic says (property 1).
func (h *harness) validLocked(pr *proc, l lockstep.Lock) bool {
	select {
	case <-l.Lost():
		return false
	default:
		return true
	}
}

// checkSafety returns the first violation: one recorded by onStore or work,
// or two holders valid at once (property 1).
func (h *harness) checkSafety() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.violations) > 0 {
		return fmt.Errorf("%s", h.violations[0])
	}
	if h.grp != nil {
		if err := h.checkGroupSafety(); err != nil {
			return err
		}
	}
	if h.dl != nil {
		if err := h.checkDeadlockSafety(); err != nil {
			return err
		}
	}
	valid := map[string][]string{} // id → owners whose Lost() is open
	seen := map[string][]int{}     // id → their holdings (proc.holdingNo)
	for _, pr := range h.procs {
		if l := pr.holding; l != nil && !pr.sp.Crashed() && h.validLocked(pr, l) {
			row := h.row(pr, l.ID()) // one holder per id in each scope (dc_test.go)
			if h.co == nil && slices.Contains(valid[row], l.Owner()) {
				continue // one owner shared by two processes (transferfleet_test.go) is one holder
			}
			if h.co != nil && slices.Contains(seen[row], pr.holdingNo) {
				// One shared lock's giver and adopters are one holder; a
				// lock granted in memory beside them (one owner: one store
				// hold) is another (cohorttransfer_test.go).
				continue
			}
			valid[row] = append(valid[row], l.Owner())
			seen[row] = append(seen[row], pr.holdingNo)
			if len(valid[row]) > 1 {
				return fmt.Errorf("mutual exclusion: %d holders of %q with Lost() open at once: %v (holdings %v)", len(valid[row]), row, valid[row], seen[row])
			}
		}
	}
	if !h.v.noOwnerCellCheck {
		if err := h.checkOwnerCells(); err != nil {
			return err
		}
	}
	return h.checkQueueCells()
}
